"""The paper's four workloads on the CUDA target, without a GPU: written as
users write them (examples/freetensor/as_written, no schedule), scheduled
automatically for the GPU, or with the GPU schedule their file has
(@teml.schedule(f, target="cuda")), run in
teml's emulator (every block and thread, races checked) give what NumPy
gives and what the reference interpreter gives (--verify); their CUDA C
compiles to a cubin without spills."""
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import EXAMPLES, TEML
from test_workloads import make_inputs, reference

sys.path.insert(0, str(EXAMPLES.parents[1] / "bench" / "freetensor"))
import gpu_variants  # noqa: E402  (the candidate GPU schedules the device check times)

# nvcc as teml finds it (runtime/cuda_compile.cpp): on PATH, under $CUDA_HOME/bin or /usr/local/cuda/bin.
NVCC = shutil.which("nvcc") or next((str(p) for p in (pathlib.Path(os.environ.get("CUDA_HOME", "/nonexistent")) / "bin" / "nvcc",
                                                     pathlib.Path("/usr/local/cuda/bin/nvcc")) if p.exists()), None)

WORKLOADS = [("subdivnet", "y"), ("longformer", "y"), ("softras", "prob"), ("gat", "y")]
OWN_GPU_SCHEDULES = [("longformer", "y"), ("gat", "y")]  # files with @teml.schedule(f, target="cuda")
OUTPUT = dict(WORKLOADS)


def small_inputs(name):
    inputs = make_inputs.WORKLOADS[name](np.random.default_rng(5), small=True)
    if name == "longformer":  # 40 tokens: the emulator runs every thread of every block
        inputs = {k: v[:, :40] for k, v in inputs.items()}
    return inputs


@pytest.mark.parametrize("name,output", WORKLOADS)
def test_workload_as_users_write_it_auto_scheduled_for_the_gpu_matches_numpy_in_the_emulator(teml, name, output):
    # examples/freetensor/as_written: no schedule, in-place softmaxes and all
    inputs = make_inputs.WORKLOADS[name](np.random.default_rng(5), small=True)
    got = teml.run(EXAMPLES / "as_written" / f"{name}.py", inputs, [output],
                   extra=["--target", "cuda", "--emulate"])[output]
    np.testing.assert_allclose(got, getattr(reference, name)(**inputs), rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("name,output", OWN_GPU_SCHEDULES)
def test_workloads_own_gpu_schedule_matches_numpy_in_the_emulator(teml, name, output):
    inputs = small_inputs(name)
    got = teml.run(EXAMPLES / f"{name}.py", inputs, [output], extra=["--target", "cuda", "--emulate", "-v"])[output]
    np.testing.assert_allclose(got, getattr(reference, name)(**inputs), rtol=2e-4, atol=2e-4)


WORKLOAD_VARIANTS = sorted(v for v in gpu_variants.VARIANTS if v.split("-")[0] in OUTPUT)  # not mm's (tests/cuda_target_test.cpp)


def variant_file(tmp_path, variant):
    path = tmp_path / f"{variant}.py"
    path.write_text(gpu_variants.variant_source(variant))
    return variant.split("-")[0], path


@pytest.mark.parametrize("variant", WORKLOAD_VARIANTS)
def test_candidate_gpu_schedules_of_the_device_check_match_numpy_in_the_emulator(teml, tmp_path, variant):
    name, path = variant_file(tmp_path, variant)
    inputs = small_inputs(name)
    got = teml.run(path, inputs, [OUTPUT[name]], extra=["--target", "cuda", "--emulate"])[OUTPUT[name]]
    np.testing.assert_allclose(got, getattr(reference, name)(**inputs), rtol=2e-4, atol=2e-4)


def input_files(tmp_path, name):
    """The small inputs of workload `name` as .npy files (they set its sizes), as --input options."""
    args = []
    for tensor, value in make_inputs.WORKLOADS[name](np.random.default_rng(5), small=True).items():
        np.save(tmp_path / f"{tensor}.npy", value)
        args += ["--input", f"{tensor}={tmp_path / f'{tensor}.npy'}"]
    return args


@pytest.mark.parametrize("name,output", WORKLOADS)
def test_the_automatic_gpu_schedule_binds_blocks_and_threads(tmp_path, name, output):
    result = subprocess.run([TEML, "check", str(EXAMPLES / f"{name}.py"), "--no-schedule", "--target", "cuda", "-v",
                             *input_files(tmp_path, name)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert '"blockIdx.x")' in result.stderr and '"threadIdx.x")' in result.stderr, result.stderr


@pytest.mark.skipif(NVCC is None, reason="no nvcc (no CUDA toolkit)")
@pytest.mark.parametrize("name,output,schedule", [(n, o, "--no-schedule") for n, o in WORKLOADS] +
                         [(n, o, "--auto") for n, o in OWN_GPU_SCHEDULES] +
                         [(v, OUTPUT[v.split("-")[0]], "--auto") for v in WORKLOAD_VARIANTS])
def test_workload_cuda_compiles_to_a_cubin_without_spills(tmp_path, name, output, schedule):
    source = tmp_path / f"{name}.cu"
    program = variant_file(tmp_path, name)[1] if name in gpu_variants.VARIANTS else EXAMPLES / f"{name}.py"
    emitted = subprocess.run([TEML, "emit", str(program), schedule, "--target", "cuda",
                              "-o", str(source), *input_files(tmp_path, name.split("-")[0])],
                             capture_output=True, text=True)
    assert emitted.returncode == 0, emitted.stderr
    built = subprocess.run([NVCC, "-cubin", "-arch=sm_90", "-Xptxas", "-v", "-o", str(tmp_path / "k.cubin"),
                            str(source)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    report = built.stdout + built.stderr
    assert report.count("bytes spill stores") == report.count(" 0 bytes spill stores, 0 bytes spill loads") > 0, report


def test_the_automatic_gpu_schedule_sums_longformers_dot_products_on_a_warps_lanes():
    # At the paper's sizes (512 features): each lane takes every 32nd
    # feature and sums in a register, the warp folds once per score; the
    # rest of the block is a warp too (no 256-thread tree with a barrier per level).
    result = subprocess.run([TEML, "check", str(EXAMPLES / "longformer.py"), "--no-schedule", "--target", "cuda", "-v",
                             "--set", "seq_len=10000", "--set", "feat_len=512"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    steps = result.stderr
    for step in ['s.split("Ldot", 32)', 's.reorder(["Ldot", "Ldot.o"])', 's.parallelize("Ldot", "threadIdx.x")',
                 's.cache_reduce("Ldot", "dot")', 's.split("Lacc", 32)']:
        assert step in steps, steps
    assert "256" not in steps, steps


def test_the_automatic_gpu_schedule_deals_gats_edges_to_a_warps_lanes():
    # At FreeTensor's sizes (100,000 nodes, 1.2 M edges): the structure of
    # gat.py's own GPU schedule, which the cost model ranks above every lane
    # walking every edge of its node: a block per node, each CSR row's edges
    # in 32 contiguous parts on the lanes, the row's sum kept per lane.
    result = subprocess.run([TEML, "check", str(EXAMPLES / "gat.py"), "--no-schedule", "--target", "cuda", "-v",
                             "--set", "n_nodes=100000", "--set", "n_edges=1200000"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    steps = result.stderr
    for step in ['s.parallelize("Lnode", "blockIdx.x")', 's.split("Lmax", nparts=32)',
                 's.parallelize("Lmax.o", "threadIdx.x")', 's.split("Ledge", nparts=32)',
                 's.parallelize("Ledge.o", "threadIdx.x")', 's.cache_reduce("Ledge.o", "acc")',
                 's.parallelize("Lout", "threadIdx.x")']:
        assert step in steps, steps
