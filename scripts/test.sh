#!/usr/bin/env bash
# Builds teml and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
# Small test programs keep their parallel code on threads (docs/auto-schedule.md, auto_parallelize).
export TEML_THREADS_AT_ANY_SIZE=1
ctest --test-dir build --output-on-failure -j 2
# The Python package's pytest summary in the log (ctest ran it already).
PYTHONPATH=build/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python | tail -1
