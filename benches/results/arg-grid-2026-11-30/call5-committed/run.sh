#!/bin/bash
# Call 5 (stop 64): argmin / argmax, one batch a thread at most on small inputs (the committed form), last batch apart, value from the key.
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
./conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt; grep -iE "^test .*FAIL|panicked" $OUT/conformance.txt | head
./cuda_vs_cpu --include-ignored 2>&1 | grep "test result" | tee $OUT/cuda_vs_cpu.txt
compute-sanitizer --tool memcheck ./conformance_cuda --include-ignored arg_reduce 2>&1 | tail -2 | tee $OUT/memcheck.txt
date -u
B="./wavekit bench --backend cuda --reps 15"
for r in 1 2; do
  $B --only "argm" --sizes 2^20,2^24,2^28 >> $OUT/round-$r.txt 2>&1
  grep -E "^argm" $OUT/round-$r.txt | sed "s/cuda:0 (NVIDIA H200)//; s/  */ /g; s/^/r$r /"
done
date -u
timeout 100 ncu --clock-control none -k regex:"arg_|DeviceReduce" -c 8 --section SpeedOfLight --section LaunchStats --section Occupancy ./wavekit bench --backend cuda --only "argmin f32" --sizes 2^20 --reps 2 > $OUT/ncu-argmin-2e20.txt 2>&1
grep -E "  (void|arg|cub)|Duration|Grid Size" $OUT/ncu-argmin-2e20.txt | cut -c1-100 | head -24
date -u
