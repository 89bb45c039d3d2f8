#!/bin/bash
# #23: where the 16-bit scan's warps wait (per SASS instruction stall samples), against the f32 scan.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O
mkdir -p /tmp/exp && tar xJf .gpu-perf-h/exp.tar.xz -C /tmp/exp
W=/tmp/exp/wavekit
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
{ date -u; cat /tmp/exp/commit.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; $NCU --version | tail -1; } > $O/device.txt
i=0
for c in "scan_pairs_kernel|scan inclusive sum f16" "scan_kernel|scan inclusive sum f32"; do
  IFS='|' read -r k only <<<"$c"; i=$((i+1))
  timeout 200 $NCU --clock-control none --kernel-name "regex:$k" --launch-skip 2 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section LaunchStats --section Occupancy \
    --import-source no -o /tmp/rep$i -f \
    $W bench --backend cuda --sizes 2^28 --reps 3 --only "$only" > $O/bench$i.txt 2>&1
  $NCU -i /tmp/rep$i.ncu-rep --page source --csv --print-source sass > $O/sass$i.csv 2> $O/sass$i.err
  $NCU -i /tmp/rep$i.ncu-rep --page details --print-details all > $O/details$i.txt 2>&1
done
ls -la $O; head -3 $O/sass1.csv | cut -c1-600
