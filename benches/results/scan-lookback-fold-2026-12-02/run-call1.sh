#!/bin/bash
# #23: scan_pairs_kernel EXP variants 9-13 (look-back polling, load / store cache hints) against
# the default in the same process; then variant 14's per-block phase clocks at 2^28.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O
mkdir -p /tmp/exp && tar xJf .gpu-perf-h/exp.tar.xz -C /tmp/exp
W=/tmp/exp/wavekit
{ date -u; cat /tmp/exp/commit.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; } > $O/device.txt
timeout 120 $W bench --backend cuda --only "xq profile" --sizes 2^24,2^28 --reps 5 > $O/profile.txt 2>&1
for r in 1 2 3; do
  for row in "xp " "scan inclusive sum f16" "scan inclusive sum bf16"; do
    echo "== round $r: $row"
    $W bench --backend cuda --only "$row" --sizes 2^20,2^24,2^28 --reps 15 2>&1 | grep -E "^scan|refused|rror|copy"
  done
done > $O/variants.txt
grep PROF $O/profile.txt | tail -6
cat $O/variants.txt
