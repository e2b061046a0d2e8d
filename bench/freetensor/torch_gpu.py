#!/usr/bin/env python3
"""PyTorch CUDA baselines for the GPU target (issue 31), measured on a lent
device: the card's two ceilings, the four workloads of torch_layers.py
forward and forward + backward (eager, and torch.compile where it builds),
and cuBLAS matrix products.

    python3 bench/freetensor/torch_gpu.py DATA_DIR OUT.json [--compile]

DATA_DIR is what examples/freetensor/make_inputs.py writes. Times are CUDA
events around the region, median of many runs after warm-up. Each workload's
GPU output is checked against the same layer on the CPU (float32,
‖gpu - cpu‖ / ‖cpu‖) before it is timed."""
import json
import pathlib
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import torch_layers  # noqa: E402

WRT = {"subdivnet": ["e", "w0", "w1", "w2", "w3"], "longformer": ["q", "k", "v"],
       "softras": ["faces"], "gat": ["feat", "weight", "attn_l", "attn_r"]}


def cuda_time(fn, runs=20, warmup=3):
    """Median and minimum seconds of fn() between CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return {"median_s": statistics.median(times), "min_s": min(times), "runs": runs}


def ceilings():
    n = 1 << 28  # 1 GiB of float32: far beyond the L2 cache
    a, b = torch.rand(n, device="cuda"), torch.empty(n, device="cuda")
    copy = cuda_time(lambda: b.copy_(a))
    out = {"copy_bytes": 2 * 4 * n, "copy": copy, "bandwidth_GBps": 2 * 4 * n / copy["median_s"] / 1e9}
    del a, b
    for tf32 in (False, True):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        for size in (1024, 2048, 4096, 8192):
            x, y = torch.rand(size, size, device="cuda"), torch.rand(size, size, device="cuda")
            t = cuda_time(lambda: x @ y, runs=10 if size == 8192 else 30)
            out[f"mm{size}{'_tf32' if tf32 else ''}"] = dict(t, TFLOPs=2 * size ** 3 / t["median_s"] / 1e12)
    torch.backends.cuda.matmul.allow_tf32 = False
    return out


def on_gpu(inputs):
    return {k: v.cuda() for k, v in inputs.items()}


def workload(name, directory, compile_too):
    torch.set_default_device("cuda")  # the layers' aranges land beside their inputs
    inputs = on_gpu(torch_layers.load(name, directory))
    layer = getattr(torch_layers, name)
    record = {}
    with torch.no_grad():
        out = layer(**inputs)
        if name != "longformer":  # the CPU reference of Longformer alone takes a minute
            torch.set_default_device("cpu")
            want = layer(**{k: v.cpu() for k, v in inputs.items()})
            torch.set_default_device("cuda")
            record["forward_rel_error"] = float((out.cpu() - want).norm() / want.norm())
        record["forward"] = cuda_time(lambda: layer(**inputs))
    grad_layer = getattr(torch_layers, name + "_for_autograd", layer)
    for x in WRT[name]:
        inputs[x].requires_grad_(True)

    def step():
        for x in WRT[name]:
            inputs[x].grad = None
        grad_layer(**inputs).sum().backward()
    record["forward_backward"] = cuda_time(step, runs=10)
    if compile_too:
        for x in WRT[name]:
            inputs[x].requires_grad_(False)
        try:
            start = time.time()
            compiled = torch.compile(layer)
            with torch.no_grad():
                compiled(**inputs)
                record["compile_s"] = time.time() - start
                record["forward_compiled"] = cuda_time(lambda: compiled(**inputs))
        except Exception as error:  # noqa: BLE001 -- a baseline that does not build is reported, not fatal
            record["forward_compiled_error"] = str(error).splitlines()[0][:200]
    record["peak_memory_MiB"] = torch.cuda.max_memory_allocated() / 2 ** 20
    return record


def main():
    directory, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    if len(sys.argv) > 3 and sys.argv[3] in WRT:  # one workload, in a process of its own
        print(json.dumps(workload(sys.argv[3], directory / sys.argv[3], "--compile" in sys.argv)))
        return
    props = torch.cuda.get_device_properties(0)
    result = {"card": props.name, "sm_count": props.multi_processor_count,
              "memory_GiB": props.total_memory / 2 ** 30, "torch": torch.__version__,
              "capability": f"{props.major}.{props.minor}", "ceilings": ceilings()}
    print(json.dumps(result), flush=True)
    for name in WRT:
        try:
            run = subprocess.run([sys.executable, __file__, str(directory), str(out), name] + sys.argv[3:],
                                 capture_output=True, text=True, timeout=240)
            result[name] = json.loads(run.stdout.splitlines()[-1]) if run.returncode == 0 else {"error": run.stderr[-2000:]}
        except subprocess.TimeoutExpired:
            result[name] = {"error": "over 240 s"}
        print(name, json.dumps(result[name]), flush=True)
        out.write_text(json.dumps(result, indent=1))
    out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
