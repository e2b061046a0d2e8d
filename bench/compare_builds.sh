#!/usr/bin/env bash
# Times the best schedule of every paper kernel with two teml binaries, in
# turns (A B A B ...), and prints a markdown table of the medians: the check
# that a refactoring left the generated code as fast as before.
# With VARIANT=auto, the automatic schedule (naive.teml --auto) instead,
# each binary tuning into a kernel cache of its own (the first run chooses).
# usage: [KERNELS="mm blur"] [VARIANT=auto] bench/compare_builds.sh BEFORE_TEML AFTER_TEML [TURNS]
set -euo pipefail
before="$1"; after="$2"; turns="${3:-3}"
root="$(cd "$(dirname "$0")/.." && pwd)"
declare -A sizes=(
  [mm]="N=1024" [sddmm]="N=4096 K=256" [mttkrp]="I=250 J=250 K=250 L=250"
  [gconv]="NB=128 G=4 C=8 H=32 R=7" [bmm]="NB=32768 M=72 K=26" [interp]="E=350000 N=7"
  [helm]="E=25000 N=13" [blur]="N=4096" [coars]="N=4096")
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
caches="$(mktemp -d)"
trap 'rm -rf "$caches"' EXIT
run() {  # binary kernel -> median kernel seconds of one `teml bench`
  local set_args="" program="best.teml"
  for s in ${sizes[$2]}; do set_args+=" --set $s"; done
  if [ "${VARIANT:-best}" = auto ]; then
    program="naive.teml"
    set_args+=" --auto --cache-dir $caches/$(echo "$1" | md5sum | cut -c1-8)"
  fi
  "$1" bench "$root/examples/$2/$program" $set_args --runs 5 --json | sed 's/.*"median_s": \([0-9.e+-]*\).*/\1/'
}
echo "| kernel | before (s) | after (s) | after / before |"
echo "|---|---|---|---|"
for kernel in ${KERNELS:-mm sddmm mttkrp gconv bmm interp helm blur coars}; do
  run "$before" "$kernel" >/dev/null; run "$after" "$kernel" >/dev/null  # compile and warm up both
  a=(); b=()
  for ((t = 0; t < turns; t++)); do
    a+=("$(run "$before" "$kernel")")
    b+=("$(run "$after" "$kernel")")
  done
  ma=$(printf '%s\n' "${a[@]}" | median); mb=$(printf '%s\n' "${b[@]}" | median)
  awk -v k="$kernel" -v a="$ma" -v b="$mb" 'BEGIN { printf "| %s | %.4f | %.4f | %.3f |\n", k, a, b, b / a }'
done
