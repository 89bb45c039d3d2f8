#!/usr/bin/env bash
# Second call: the f64 rows again (a second process each), then ncu of the stable f64
# compaction and CUB's select kernel at 2^28.
set -u
mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q
cd /tmp/q
date -u | tee $OUT/device.txt
for row in "compact x>0 stable f64" "compact x>0 unordered f64" "partition f64" "(before) f64"; do
  f=$(echo "$row" | tr -c 'a-z0-9\n' '_')
  timeout 150 ./wavekit bench --backend cuda --only "$row" --sizes 2^20,2^24,2^28 --reps 15 --csv $OUT/r2-$f.csv > /dev/null 2>&1
  echo "rc=$? $row"; cut -d, -f1-3,5,11,14,16 $OUT/r2-$f.csv | tail -n +2
done
for k in "regex:compact_kernel" "regex:DeviceSelectSweep"; do
  timeout 120 ncu --clock-control none --kernel-name "$k" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    ./wavekit bench --backend cuda --only "compact x>0 stable f64" --sizes 2^28 --reps 3 > $OUT/ncu-$(echo $k | tr -c 'a-zA-Z\n' '_').txt 2>&1
  echo "ncu rc=$? $k"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Block Size|Grid Size|Warp Cycles Per Issued|Theoretical Occupancy|Dynamic Shared|Static Shared" $OUT/ncu-$(echo $k | tr -c 'a-zA-Z\n' '_').txt | head -16
done
date -u
