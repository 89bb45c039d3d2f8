#!/bin/bash
mkdir -p /tmp/q && [ -x /tmp/q/wavekit ] || tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats"
for row in "reduce sum two k=4 ahead=1 f16" "reduce sum two k=4 ahead=2 f16" "reduce sum f32"; do
  f="$OUT/ncu-${row// /_}.txt"
  timeout 200 ncu -k regex:reduce_kernel -c 2 $S ./wavekit bench --backend cuda --only "$row" --sizes 2^28 --reps 1 > "$f" 2>&1
  grep -E "reduce_kernel|Duration|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issued Ipc|No Eligible|Block Limit" "$f" | head -40
done
