#!/usr/bin/env bash
# Installs the Debian packages teml needs, builds it into build/ and makes
# `import teml` work for Debian's python3 (docs/python.md).
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq || true
  $SUDO apt-get install -y -qq build-essential cmake ninja-build pkg-config libgtest-dev libisl-dev libopenblas-dev python3-numpy python3-pytest python3-dev pybind11-dev python3-pip python3-venv python3-setuptools python3-wheel python3-setuptools-whl python3-wheel-whl python3-torch python3-matplotlib libopenmpi-dev openmpi-bin >/dev/null
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
# `import teml` from Debian's python3 in any directory: a .pth file naming build/python.
site="$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])')"
if mkdir -p "$site" 2>/dev/null && [ -w "$site" ]; then
  echo "$(pwd)/build/python" > "$site/teml.pth"
else
  echo "setup: cannot write $site; use PYTHONPATH=$(pwd)/build/python" >&2
fi
