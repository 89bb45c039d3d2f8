#!/bin/bash
# Call 1 (stop 64): argmin / argmax variants (WK_ARG_VARIANT), their conformance, ncu of the f64 reduce Min/Sum at 2^20.
mkdir -p /tmp/q && [ -x /tmp/q/wavekit ] || tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for v in 1 2; do WK_ARG_VARIANT=$v ./conformance_cuda --include-ignored arg 2>&1 | grep -E "test result|FAIL|panic" | sed "s/^/v$v conformance: /"; done
WK_ARG_VARIANT=1 ./cuda_vs_cpu --include-ignored 2>&1 | grep -E "test result|FAIL" | sed "s/^/v1 cuda_vs_cpu: /"
for r in 1 2; do
  for v in 0 1 2 3; do
    WK_ARG_VARIANT=$v ./wavekit bench --backend cuda --reps 15 --only "argm" --sizes 2^20,2^24,2^28 > $OUT/arg-v$v-r$r.txt 2>&1
    grep -E "^argm" $OUT/arg-v$v-r$r.txt | sed "s/cuda:0 (NVIDIA H200)//; s/  */ /g; s/^/v$v r$r /"
  done
done
date -u
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats"
for row in "reduce min f64" "reduce sum f64"; do
  f="$OUT/ncu-${row// /_}.txt"
  timeout 100 ncu --clock-control none -k regex:"reduce_kernel|DeviceReduce" -s 2 -c 3 $S ./wavekit bench --backend cuda --only "$row" --sizes 2^20 --reps 2 > "$f" 2>&1
  grep -E "  (void|reduce|cub)|Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Grid Size|Block Size" "$f" | cut -c1-150 | head -40
done
date -u
