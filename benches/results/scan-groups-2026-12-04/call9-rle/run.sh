#!/usr/bin/env bash
# #23, 2026-12-04: run_length_encode (u32 keys in runs of 8) at 2^28, twice, then Nsight Compute
# on its kernel and CUB's, each the third launch, at the clocks the bench runs at; then torch's
# unique_consecutive (return_counts) beside it. Also the two 16-bit scan rows twice more.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
O=${OUT:-/tmp/out}; mkdir -p $O
mkdir -p /tmp/wavekit-bench && tar -C /tmp/wavekit-bench -xJf "$here/payload.tar.xz"
B=/tmp/wavekit-bench/bin/wavekit
for round in 1 2; do
  for row in "run_length_encode runs of 8 u32" "scan inclusive sum f16" "scan inclusive sum bf16"; do
    echo "== round $round: $row"
    timeout 60 $B bench --backend cuda --sizes 2^28 --reps 15 --only "$row" 2>/dev/null | grep -E 'cuda:0 \(|refused' | grep -v '^\['
  done
done > $O/repeat.txt 2>&1
cat $O/repeat.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
for k in runs_kernel "DeviceReduceByKeyKernel|DeviceRleSweepKernel|DeviceScanKernel|DeviceCompactInitKernel"; do
  echo "===== ncu $k"
  timeout 120 $NCU --clock-control none --kernel-name "regex:$k" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section WarpStateStats --section LaunchStats --section SchedulerStats \
    $B bench --backend cuda --sizes 2^28 --reps 3 --only "run_length_encode runs of 8 u32"
done > $O/ncu.txt 2>&1
grep -E '_kernel|Kernel|DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Registers Per|Block Size|Grid Size|Warp Cycles Per Issued|Stall|Issued Warp' $O/ncu.txt | head -60
PYTHONUNBUFFERED=1 timeout 100 python3 /tmp/wavekit-bench/bin/bench_peers.py --only "unique_consecutive" --sizes 2^28 --reps 15 > $O/peers.txt 2>&1
cat $O/peers.txt
