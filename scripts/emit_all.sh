#!/usr/bin/env bash
# Emits the generated C of every paper kernel (at the benchmark's sizes) and
# every .til example into DIR, with the teml binary given: comparing two
# directories shows whether a refactoring changed the generated code.
# usage: scripts/emit_all.sh TEML_BINARY DIR
set -euo pipefail
teml="$1"; out="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
declare -A sizes=(
  [mm]="N=1024" [sddmm]="N=4096 K=256" [mttkrp]="I=250 J=250 K=250 L=250"
  [gconv]="NB=128 G=4 C=8 H=32 R=7" [bmm]="NB=32768 M=72 K=26" [interp]="E=350000 N=7"
  [helm]="E=25000 N=13" [blur]="N=4096" [coars]="N=4096")
for kernel in "${!sizes[@]}"; do
  set_args=""
  for s in ${sizes[$kernel]}; do set_args+=" --set $s"; done
  for program in "$root"/examples/"$kernel"/*.teml; do
    "$teml" emit "$program" $set_args > "$out/$kernel-$(basename "$program" .teml).c"
  done
done
for program in "$root"/examples/til/*/*.til "$root"/examples/til/*.til; do
  [ -e "$program" ] || continue
  "$teml" emit "$program" --set E=1000 --set N=7 > "$out/til-$(basename "$program" .til).c" 2>/dev/null || true
done
