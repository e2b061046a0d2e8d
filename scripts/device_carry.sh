#!/bin/bash
# What the device check (scripts/device_check.sh) needs beside build/teml on
# a bare GPU machine: the shared libraries teml links that its image lacks
# (isl, gmp), copied into build/device-libs (carry both paths).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/build/device-libs"
ldd "$root/build/teml" | awk '/=> \// {print $3}' | grep -E 'libisl|libgmp' | while read -r lib; do
  cp -L "$lib" "$root/build/device-libs/"
done
ls -l "$root/build/device-libs"
