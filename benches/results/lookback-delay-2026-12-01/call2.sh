#!/bin/bash
# Call 2 (stop 68): the look-back's first delay swept (experiment build, WK_LB_FIRST ns).
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for row in "compact x>0 stable f32" "unique runs of 8" "reduce_by_key runs of 8"; do
  for cfg in main 200 450 900 1800; do
    if [ $cfg = main ]; then bin=./wavekit; env=""; else bin=./wavekit-exp; env="WK_LB_FIRST=$cfg"; fi
    echo "== $row | $cfg" >> $OUT/bench.txt
    env $env timeout 60 $bin bench --backend cuda --reps 25 --only "$row" --sizes 2^20,2^24,2^28 > $OUT/one.txt 2>&1
    cat $OUT/one.txt >> $OUT/bench.txt
    grep -E "^(compact|unique|reduce_by_key)" $OUT/one.txt | grep -v "tiles=\|blocks=\|before\|via" | sed "s/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g; s/^/$cfg /"
  done
  date -u
done
