#!/usr/bin/env bash
# Installs the Debian packages teml needs and builds it into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq || true
  $SUDO apt-get install -y -qq build-essential cmake ninja-build pkg-config libgtest-dev libisl-dev libopenblas-dev python3-numpy python3-pytest >/dev/null
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
