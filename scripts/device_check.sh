#!/bin/bash
# The checks that need a lent GPU, as one command (see the device tool's README):
#   run(command="bash scripts/device_check.sh", timeout_s=540)
# Today: the card's ceilings and the PyTorch CUDA baselines of the four
# FreeTensor workloads and of cuBLAS (bench/freetensor/torch_gpu.py), which
# the CUDA back end (issue 31) is to be measured against. Results land in
# $OUT (device_baselines.json, log).
set -o pipefail
OUT=${OUT:-/tmp/device-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv | tee "$OUT/nvidia-smi.csv"
data=/tmp/teml-freetensor-data
python3 examples/freetensor/make_inputs.py "$data" > "$OUT/inputs.log" 2>&1 || { cat "$OUT/inputs.log"; exit 1; }
timeout 480 python3 bench/freetensor/torch_gpu.py "$data" "$OUT/device_baselines.json" --compile 2>&1 | tee "$OUT/log"
