#!/bin/bash
# Call 1 (stop 68): main (2ad4d41) conformance on the GPU, then look-back delays (experiment build).
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
./conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt; grep -iE "^test .*FAIL|panicked" $OUT/conformance.txt | head
./cuda_vs_cpu --include-ignored 2>&1 | grep "test result" | tee $OUT/cuda_vs_cpu.txt
timeout 150 compute-sanitizer --tool memcheck ./conformance_cuda --include-ignored scan compact unique run_length runs by_key 2>&1 | tail -2 | tee $OUT/memcheck.txt
date -u
for row in "compact x>0 stable f32" "unique runs of 8" "scan inclusive sum f16" "reduce_by_key runs of 8" "scan inclusive sum f32"; do
  for cfg in main 0,0 450,0 0,200 450,350; do
    if [ $cfg = main ]; then bin=./wavekit; env=""; else bin=./wavekit-exp; env="WK_LB_FIRST=${cfg%,*} WK_LB_SPIN=${cfg#*,}"; fi
    echo "== $row | $cfg" >> $OUT/bench.txt
    env $env timeout 60 $bin bench --backend cuda --reps 25 --only "$row" --sizes 2^20,2^24,2^28 >> $OUT/bench.txt 2>&1
    grep -E "^(compact|unique|reduce_by_key|scan)" $OUT/bench.txt | tail -12 | grep -v "tiles=\|blocks=\|torch\|before\|pairs" | grep -E " (CUB|copy)" | tail -3 | sed "s/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g; s/^/$cfg /"
  done
  date -u
done
