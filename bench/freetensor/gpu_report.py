#!/usr/bin/env python3
"""bench/freetensor_gpu.md from a device check (scripts/device_check.sh):
teml's CUDA target (auto-scheduled workloads, examples/cuda/mm.py) against
PyTorch CUDA in its strongest form (the faster of eager and torch.compile)
and cuBLAS, measured in one session on one card, each figure also as a
fraction of the card's limit (its measured copy bandwidth and SGEMM rate,
against each workload's work from work.py).

    python3 bench/freetensor/gpu_report.py TEML.jsonl TORCH.json NVIDIA-SMI.csv OUT.md [DATA_DIR]"""
import datetime
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import work  # noqa: E402


def main():
    teml_file, torch_file, smi_file, out = map(pathlib.Path, sys.argv[1:5])
    data = pathlib.Path(sys.argv[5]) if len(sys.argv) > 5 else pathlib.Path("/tmp/teml-freetensor-data")
    teml = {r["workload"]: r for r in map(json.loads, filter(None, teml_file.read_text().splitlines()))}
    torch = json.loads(torch_file.read_text()) if torch_file.exists() else {}
    card = smi_file.read_text().splitlines()[-1] if smi_file.exists() else "unknown card"
    ceilings = torch.get("ceilings", {})
    bandwidth = ceilings.get("bandwidth_GBps", 0) * 1e9
    sgemm = max((v.get("TFLOPs", 0) for k, v in ceilings.items() if k.startswith("mm") and "tf32" not in k), default=0) * 1e12
    lines = [f"# teml's CUDA target against PyTorch CUDA and cuBLAS", "",
             f"Measured {datetime.date.today()} by `scripts/device_check.sh` on: {card}. CUDA events, median of the "
             "runs (teml: `teml bench --target cuda`, data on the device; PyTorch: bench/freetensor/torch_gpu.py). "
             f"The card's limits as measured in the same check: copy {bandwidth / 1e9:.0f} GB/s, "
             f"SGEMM {sgemm / 1e12:.1f} TFLOP/s.", "",
             "| workload | teml (ms) | PyTorch strongest (ms) | speed-up | teml's share of the card's limit |",
             "|---|---|---|---|---|"]
    # "NAME": the file's GPU schedule where it has one, else the automatic one; "NAME-auto": the automatic one;
    # "NAME-VARIANT": a candidate schedule of gpu_variants.py
    fixed = ["subdivnet", "longformer", "longformer-auto", "softras", "gat", "gat-auto"]
    candidates = sorted(k for k in teml if "-" in k and k not in fixed and not k.startswith("mm"))
    for row in fixed + candidates:
        name = row.split("-")[0]
        t = teml.get(row)
        if row != name and not t:
            continue
        p = torch.get(name, {})
        forms = [p[k]["median_s"] for k in ("forward", "forward_compiled") if isinstance(p.get(k), dict)]
        base = min(forms) if forms else None
        share = ""
        if t and bandwidth and sgemm and (data / name).exists():
            w = getattr(work, name)(data / name)
            floor = max(w["bytes"] / bandwidth, w["flops"] / sgemm)
            share = f"{floor / t['median_s']:.0%} ({'memory' if w['bytes'] / bandwidth >= w['flops'] / sgemm else 'compute'})"
        lines.append(f"| {row} | {t['median_s'] * 1e3:.3f} | " if t else f"| {row} | failed | ")
        lines[-1] += (f"{base * 1e3:.3f} | {base / t['median_s']:.2f}x | {share} |" if t and base else "n/a | n/a | |")
    lines += ["", "| mm (float32) | teml (ms) | teml TFLOP/s | cuBLAS (ms) | teml / cuBLAS | teml's as_lib -> cuBLAS (ms) |",
              "|---|---|---|---|---|---|"]
    for n in (1024, 2048, 4096):
        t = teml.get(f"mm{n}")
        c = ceilings.get(f"mm{n}")
        lib = teml.get(f"mm-cublas{n}")
        lib_text = f"{lib['median_s'] * 1e3:.3f}" if lib else "n/a"
        if not t:
            lines.append(f"| {n} | failed | | | | {lib_text} |")
            continue
        rate = 2 * n ** 3 / t["median_s"] / 1e12
        lines.append(f"| {n} | {t['median_s'] * 1e3:.3f} | {rate:.1f} | " +
                     (f"{c['median_s'] * 1e3:.3f} | {c['median_s'] / t['median_s']:.2f} |" if c else "n/a | |") +
                     f" {lib_text} |")
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
