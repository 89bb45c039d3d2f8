#!/bin/bash
# Call 2 (stop 64): the committed-to-be argmin / argmax grid and the f64 Min / Max fold by comparisons.
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
./conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt; grep -iE "^test .*FAIL|panicked" $OUT/conformance.txt | head
./cuda_vs_cpu --include-ignored 2>&1 | grep "test result" | tee $OUT/cuda_vs_cpu.txt
compute-sanitizer --tool memcheck ./conformance_cuda --include-ignored arg_reduce device_reduce 2>&1 | tail -3 | tee $OUT/memcheck.txt
date -u
B="./wavekit bench --backend cuda --reps 15"
for r in 1 2; do
  for row in "argm" "reduce min f64" "reduce max f64" "reduce sum f64"; do
    $B --only "$row" --sizes 2^20,2^24,2^28 >> $OUT/round-$r.txt 2>&1
  done
  grep -E "^(argm|reduce)" $OUT/round-$r.txt | sed "s/cuda:0 (NVIDIA H200)//; s/  */ /g; s/^/r$r /"
done
date -u
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats"
for row in "reduce min f64" "reduce sum f64"; do
  timeout 100 ncu --clock-control none -k regex:"reduce_kernel" -s 2 -c 2 $S ./wavekit bench --backend cuda --only "$row" --sizes 2^20 --reps 2 > "$OUT/ncu-${row// /_}.txt" 2>&1
  grep -E "  (void|reduce)|Duration|Warp Cycles Per Issued|Registers Per" "$OUT/ncu-${row// /_}.txt" | cut -c1-110 | head -12
done
date -u
