#!/bin/bash
# #23: the look-back's fold publishing the inclusive prefixes it passes (variant 15), against the
# default in the same process; variant 16's per-block phase clocks at 2^28.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O
mkdir -p /tmp/exp && tar xJf .gpu-perf-h/exp.tar.xz -C /tmp/exp
W=/tmp/exp/wavekit
{ date -u; cat /tmp/exp/commit.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; } > $O/device.txt
timeout 120 $W bench --backend cuda --only "xq help profile" --sizes 2^28 --reps 3 > $O/profile.txt 2>&1
for r in 1 2 3; do
  for row in "xh help" "scan inclusive sum f16" "scan inclusive sum bf16"; do
    echo "== round $r: $row"
    $W bench --backend cuda --only "$row" --sizes 2^20,2^24,2^28 --reps 15 2>&1 | grep -E "^scan|refused|rror|copy"
  done
done > $O/variants.txt
grep -A2 "PROF blocks 1638" $O/profile.txt | tail -3
grep -E "round|2\^2[48]" $O/variants.txt
