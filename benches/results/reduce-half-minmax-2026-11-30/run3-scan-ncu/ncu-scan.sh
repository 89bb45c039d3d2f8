#!/bin/bash
# ncu of the committed 16-bit scan (scan_pairs_kernel) and the f32 scan at 2^28 (stop 63).
mkdir -p /tmp/q && [ -x /tmp/q/wavekit ] || tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
date -u
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats --section SourceCounters"
for spec in "scan inclusive sum f16:scan_pairs_kernel" "scan inclusive sum bf16:scan_pairs_kernel" "scan inclusive sum f32:scan_kernel"; do
  row="${spec%%:*}"; k="${spec##*:}"
  f="$OUT/ncu-${row// /_}.txt"
  timeout 150 ncu --clock-control none -k regex:"$k" -s 1 -c 1 $S ./wavekit bench --backend cuda --only "$row" --sizes 2^28 --reps 2 > "$f" 2>&1
  grep -E "  (scan|void)|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issued Ipc|No Eligible|Stall|stall" "$f" | head -30
done
date -u
