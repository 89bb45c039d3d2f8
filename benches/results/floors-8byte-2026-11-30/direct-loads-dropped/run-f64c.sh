#!/usr/bin/env bash
# Third call: 8-byte compaction with direct loads; tests, memcheck, rows with their before rows.
set -u
mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q
cd /tmp/q
date -u | tee $OUT/device.txt
timeout 200 ./conformance_cuda --include-ignored > /tmp/tests.txt 2>&1; echo "tests rc=$?"; grep "test result" /tmp/tests.txt | tee $OUT/tests.txt
timeout 150 compute-sanitizer --tool memcheck --print-limit 5 ./conformance_cuda --include-ignored --test-threads 1 cuda_native::compact cuda_native::partition > /tmp/memcheck.txt 2>&1; echo "memcheck rc=$?"; tail -3 /tmp/memcheck.txt | tee -a $OUT/tests.txt
for i in 1 2; do
for row in "compact x>0 stable f64" "compact x>0 unordered f64" "(before) f64"; do
  f=$(echo "$row" | tr -c 'a-z0-9\n' '_')
  timeout 150 ./wavekit bench --backend cuda --only "$row" --sizes 2^20,2^24,2^28 --reps 15 --csv $OUT/r$i-$f.csv > /dev/null 2>&1
  echo "rc=$? $row"; cut -d, -f1-3,5,11,14,16 $OUT/r$i-$f.csv | tail -n +2
done
done
timeout 120 ncu --clock-control none --kernel-name "regex:compact_kernel" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section InstructionStats \
    ./wavekit bench --backend cuda --only "compact x>0 stable f64" --sizes 2^28 --reps 3 > $OUT/ncu-compact.txt 2>&1
grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Instructions  " $OUT/ncu-compact.txt | head
date -u
