#!/bin/bash
# The checks that need a lent GPU, as one command (see the device tool's
# README and docs/cuda.md), under 8 minutes:
#   run(command="bash scripts/device_check.sh", carry=["build/teml", "build/device-libs"], timeout_s=540)
# after `bash scripts/device_carry.sh` here (the teml binary's libraries
# beside it). It
#  1. names the card;
#  2. runs every CUDA test program (tests/cuda/*.py) on the GPU against the
#     reference interpreter (--verify), and the four workloads and mm at
#     small sizes likewise;
#  3. runs compute-sanitizer racecheck and memcheck on a few kernels;
#  4. times the four workloads (auto-scheduled for the GPU), the candidate
#     schedules of bench/freetensor/gpu_variants.py, and mm with
#     CUDA events (teml bench --target cuda) at the paper's sizes, against
#     PyTorch CUDA and cuBLAS (bench/freetensor/torch_gpu.py);
#  5. writes freetensor_gpu.md (bench/freetensor/gpu_report.py) naming the card.
# Everything lands in $OUT. BUDGET (seconds, 450 by default) bounds the
# whole check: steps that would start too late are skipped and said so.
# BASELINES=FILE reuses PyTorch's figures of an earlier check on the same
# kind of card (bench/freetensor/device/*.json) instead of measuring them
# (two minutes of a short lease).
set -o pipefail
OUT=${OUT:-/tmp/device-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export LD_LIBRARY_PATH="$root/build/device-libs:${LD_LIBRARY_PATH:-}"
T="$root/build/teml"
cache=/tmp/teml-device-cache
log="$OUT/log"
: > "$log"
say() { echo "== $* (at ${SECONDS}s)" | tee -a "$log"; }
# The whole check keeps inside BUDGET seconds (the lease is short): a step
# that would start after its share of the budget is skipped, and said so.
BUDGET=${BUDGET:-450}
time_left() { echo $((BUDGET - SECONDS)); }
enough() { [ "$(time_left)" -gt "$1" ] || { echo "skipped (under $1 s of the budget left): $2" | tee -a "$log"; return 1; }; }

say "1. the card"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee "$OUT/nvidia-smi.csv"
"$T" --help > /dev/null || { echo "build/teml does not run here (carry build/teml and build/device-libs)" | tee -a "$log"; exit 1; }

nvcc --version | tail -2 | tee -a "$log"
say "2. every CUDA test program on the GPU against the interpreter"
failed=0
ran=0
for p in tests/cuda/*.py; do
  enough 120 "$p" || continue
  ran=$((ran + 1))
  if timeout 40 "$T" run "$p" --target cuda --random 1 --verify --cache-dir "$cache" >> "$log" 2>&1; then
    echo "ok   $p" | tee -a "$log"
  else
    echo "FAIL $p" | tee -a "$log"; failed=$((failed + 1))
  fi
  if [ "$ran" = 2 ] && [ "$failed" = 2 ]; then
    # Nothing runs on this card: keep the lease for a rerun after a fix.
    say "the first two programs failed; diagnostics, then stop"
    timeout 60 "$T" run tests/cuda/01_*.py --target cuda --random 1 -v --cache-dir "$cache" 2>&1 | tail -40 | tee -a "$log"
    ls -l /usr/local/nvidia/lib64 2>&1 | head; ldconfig -p | grep -E 'libcuda|nvrtc' | tee -a "$log"
    exit 3
  fi
done
# The workload's own GPU schedule (@teml.schedule(f, target="cuda")) where
# it has one, else the automatic one (its CPU schedule set aside).
schedule_of() { grep -q 'target="cuda"' "examples/freetensor/$1.py" && echo --auto || echo --no-schedule; }
small=/tmp/teml-small
python3 examples/freetensor/make_inputs.py "$small" --small >> "$log" 2>&1
for w in subdivnet longformer softras gat; do
  enough 110 "$w (small)" || continue
  args=(); for f in "$small/$w"/*.npy; do args+=(--input "$(basename "$f" .npy)=$f"); done
  if timeout 60 "$T" run "examples/freetensor/$w.py" "$(schedule_of $w)" --target cuda --verify --cache-dir "$cache" "${args[@]}" >> "$log" 2>&1; then
    echo "ok   $w (small)" | tee -a "$log"
  else
    echo "FAIL $w (small)" | tee -a "$log"; failed=$((failed + 1))
  fi
done
# Candidate GPU schedules not yet timed on a card (bench/freetensor/gpu_variants.py).
variants=/tmp/teml-gpu-variants
python3 bench/freetensor/gpu_variants.py "$variants" >> "$log" 2>&1
for f in "$variants"/*.py; do
  run=$(basename "$f" .py) w=${run%%-*}
  enough 110 "$run (small)" || continue
  args=(); for i in "$small/$w"/*.npy; do args+=(--input "$(basename "$i" .npy)=$i"); done
  [ "$w" = mm ] && args=(--set N=256 --random 1)
  if timeout 60 "$T" run "$f" --auto --target cuda --verify --cache-dir "$cache" "${args[@]}" >> "$log" 2>&1; then
    echo "ok   $run (small)" | tee -a "$log"
  else
    echo "FAIL $run (small)" | tee -a "$log"; failed=$((failed + 1))
  fi
done
timeout 60 "$T" run examples/cuda/mm.py --target cuda --set N=256 --random 1 --verify --cache-dir "$cache" >> "$log" 2>&1 \
  && echo "ok   mm (256)" | tee -a "$log" || { echo "FAIL mm (256)" | tee -a "$log"; failed=$((failed + 1)); }
echo "$failed failed" | tee -a "$log"

say "3. compute-sanitizer"
if command -v compute-sanitizer > /dev/null; then
  for check in racecheck:tests/cuda/08_block_statement_barriers.py racecheck:tests/cuda/12_tiled_matmul_shared_cache.py \
               memcheck:tests/cuda/05_csr_gather.py memcheck:tests/cuda/12_tiled_matmul_shared_cache.py; do
    tool=${check%%:*} p=${check#*:}
    enough 100 "$tool $p" || continue
    {
      timeout 40 compute-sanitizer --tool "$tool" --error-exitcode 9 "$T" run "$p" --target cuda --random 1 --cache-dir "$cache" \
        > "$OUT/sanitizer.tmp" 2>&1; rc=$?
      echo "$tool $p: exit $rc, $(grep -c 'ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards' "$OUT/sanitizer.tmp") clean summaries" | tee -a "$log"
      tail -3 "$OUT/sanitizer.tmp" >> "$log"
    }
  done
else
  echo "no compute-sanitizer here" | tee -a "$log"
fi

say "4. timings at the paper's sizes"
data=/tmp/teml-freetensor-data
python3 examples/freetensor/make_inputs.py "$data" >> "$log" 2>&1
: > "$OUT/teml_gpu.jsonl"
for run in subdivnet longformer softras gat longformer-auto gat-auto; do
  w=${run%-auto}
  how=$(schedule_of "$w"); [ "$run" != "$w" ] && how=--no-schedule
  [ "$run" != "$w" ] && [ "$(schedule_of "$w")" = --no-schedule ] && continue  # timed above already
  enough 80 "timing $run" || continue
  args=(); for f in "$data/$w"/*.npy; do args+=(--input "$(basename "$f" .npy)=$f"); done
  timeout 60 "$T" bench "examples/freetensor/$w.py" "$how" --target cuda --json --runs 20 --cache-dir "$cache" "${args[@]}" \
    2>> "$log" | tail -1 | sed "s/^{/{\"workload\": \"$run\", /" >> "$OUT/teml_gpu.jsonl"
done
for f in "$variants"/*.py; do  # the candidate schedules (mm's: timed with mm below)
  run=$(basename "$f" .py) w=${run%%-*}
  [ "$w" = mm ] && continue
  enough 90 "timing $run" || continue
  args=(); for i in "$data/$w"/*.npy; do args+=(--input "$(basename "$i" .npy)=$i"); done
  timeout 60 "$T" bench "$f" --auto --target cuda --json --runs 20 --cache-dir "$cache" "${args[@]}" \
    2>> "$log" | tail -1 | sed "s/^{/{\"workload\": \"$run\", /" >> "$OUT/teml_gpu.jsonl"
done
for n in ${MM_SIZES-1024 2048 4096}; do  # MM_SIZES="": no matrix products
  enough 60 "timing mm $n" || continue
  timeout 40 "$T" bench examples/cuda/mm.py --target cuda --set N=$n --random 1 --json --runs 10 --cache-dir "$cache" \
    2>> "$log" | tail -1 | sed "s/^{/{\"workload\": \"mm$n\", /" >> "$OUT/teml_gpu.jsonl"
  timeout 40 "$T" bench "$variants/mm-cublas.py" --target cuda --set N=$n --random 1 --json --runs 10 --cache-dir "$cache" \
    2>> "$log" | tail -1 | sed "s/^{/{\"workload\": \"mm-cublas$n\", /" >> "$OUT/teml_gpu.jsonl"
done
cat "$OUT/teml_gpu.jsonl" | tee -a "$log"
if [ -n "${BASELINES:-}" ]; then  # PyTorch's figures of an earlier check on this kind of card
  cp "$BASELINES" "$OUT/device_baselines.json"; echo "PyTorch baselines from $BASELINES" | tee -a "$log"
else
  enough 40 "the PyTorch baselines" &&
  timeout $(( $(time_left) - 15 )) python3 bench/freetensor/torch_gpu.py "$data" "$OUT/device_baselines.json" 2>&1 | tail -5 | tee -a "$log"
fi

say "5. the report"
python3 bench/freetensor/gpu_report.py "$OUT/teml_gpu.jsonl" "$OUT/device_baselines.json" "$OUT/nvidia-smi.csv" \
  "$OUT/freetensor_gpu.md" 2>&1 | tee -a "$log"
rm -f "$OUT/sanitizer.tmp"
