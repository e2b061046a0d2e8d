#!/usr/bin/env bash
# The differential oracle (docs/testing.md): N generated free-form programs
# from seed SEED (default 0), each down every path, against the reference
# interpreter and finite differences.
#
#   scripts/fuzz.sh N [SEED]
#
# Resumable: seeds already in $FUZZ_OUT/results.jsonl (default fuzz-out/) are
# skipped. Splittable: run ranges side by side (fuzz.sh 500 0 & fuzz.sh 500 500).
# Environment: FUZZ_OUT, FUZZ_JOBS (programs at once, default 1), FUZZ_PATHS
# (comma list, default all: run,auto,python,torch,emulate,mpi1,mpi,mpi3,sched,
# grad,pygrad,torchgrad,teml; sched: random schedules, teml: TeML programs
# with random steps), FUZZ_TUNE_BUDGET (--auto tuning seconds, default 0),
# FUZZ_TIMEOUT (seconds per command, default 120), FUZZ_REDUCE=0 (no reducer),
# FUZZ_REDUCE_SECONDS (per failure, default 300).
# Writes $FUZZ_OUT/results.jsonl (one line per seed), summary.txt, and for
# each failure programs/seed-S.py, .log, .json and the reduced .reduced.py.
set -euo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,18p' "$0"; exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
exec /usr/bin/python3 "$root/tests/fuzz/campaign.py" "$1" "${2:-0}" --out "${FUZZ_OUT:-$root/fuzz-out}"
