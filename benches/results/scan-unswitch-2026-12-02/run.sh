#!/bin/bash
# #23: scan_pairs_kernel with its outputs loop unswitched on has_x (variant 9) against the default, same process.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O
mkdir -p /tmp/exp && tar xJf .gpu-perf-h/exp.tar.xz -C /tmp/exp
W=/tmp/exp/wavekit
{ date -u; cat /tmp/exp/commit.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; } > $O/device.txt
for r in 1 2 3; do
  for row in "outputs unswitched" "scan inclusive sum f16" "scan inclusive sum bf16"; do
    echo "== round $r: $row"
    $W bench --backend cuda --only "$row" --sizes 2^20,2^24,2^28 --reps 15 2>&1 | grep -E "^scan|refused|rror|copy"
  done
done > $O/variants.txt
cat $O/variants.txt
