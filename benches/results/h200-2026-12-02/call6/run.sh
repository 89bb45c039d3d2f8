#!/usr/bin/env bash
# Staged run, call 6: the CPU rows that missed in call 3 (scan, histogram 256) twice more, each
# its own process with its own copy / read baselines.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
R=/tmp/res6; rm -rf $R; mkdir -p $R
finish() { tar -C /tmp -czf "$OUT/call6.tar.gz" res6; }
trap finish EXIT
mkdir -p /tmp/wavekit-bench && tar -C /tmp/wavekit-bench -xJf "$here/payload.tar.xz"
B=/tmp/wavekit-bench/bin/wavekit
s=$(date +%s)
for round in 1 2; do
  for row in "scan inclusive sum" "scan exclusive sum" "histogram 256 uniform"; do
    [ $(( $(date +%s) - s )) -lt 200 ] || break 2
    echo "== round $round: $row"
    timeout 75 $B bench --backend cpu --warp 32 --only "$row" --sizes 2^28 --reps 10 2>/dev/null | grep -E 'cpu/w32|refused'
  done
done 2>&1 | tee $R/cpu-repeat.txt
