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
# The automatic schedules (heuristics only, so that two runs agree), with the
# steps -v prints.
for kernel in "${!sizes[@]}"; do
  set_args=""
  for s in ${sizes[$kernel]}; do set_args+=" --set $s"; done
  "$teml" emit "$root/examples/$kernel/naive.teml" $set_args --auto --tune-budget 0 -v \
    > "$out/$kernel-auto.c" 2> "$out/$kernel-auto.steps"
  sed -i 's/ *[0-9.]* *\(s\|ms\|us\)$//' "$out/$kernel-auto.steps"
done
for program in "$root"/examples/teil/*.teil; do  # at the sizes its header gives
  set_args="$(grep -o -- '--set [a-zA-Z]*=[0-9]*' "$program" | tr '\n' ' ')"
  name="teil-$(basename "$program" .teil)"
  "$teml" emit "$program" $set_args > "$out/$name.c"
  "$teml" emit "$program" $set_args --auto --tune-budget 0 > "$out/$name-auto.c"
done
# The FreeTensor workloads (their inputs from examples/freetensor/make_inputs.py
# in $TEML_FREETENSOR_DATA), with their own schedules and automatic ones.
data="${TEML_FREETENSOR_DATA:-/tmp/teml-freetensor-data}"
if [ -d "$data" ]; then
  for program in "$root"/examples/freetensor/*.py "$root"/examples/freetensor/as_written/*.py; do
    name="$(basename "$program" .py)"
    [ -d "$data/$name" ] || continue
    inputs=""
    for f in "$data/$name"/*.npy; do inputs+=" --input $(basename "$f" .npy)=$f"; done
    tag="ft-$(basename "$(dirname "$program")")-$name"
    "$teml" emit "$program" $inputs > "$out/$tag.c" 2>&1 || true
    "$teml" emit "$program" $inputs --no-schedule > "$out/$tag-auto.c" 2>&1 || true
    "$teml" emit "$program" $inputs --no-schedule -v 2>&1 >/dev/null | grep -v '^teml: ' > "$out/$tag-auto.steps" || true
  done
fi
