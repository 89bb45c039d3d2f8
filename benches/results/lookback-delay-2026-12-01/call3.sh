#!/bin/bash
# Call 3 (stop 68): the scans under the look-back's first delay (experiment build, WK_LB_FIRST ns).
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
date -u
for row in "scan inclusive sum f32" "scan inclusive sum f16" "scan inclusive sum i64"; do
  for cfg in main 900 1800; do
    if [ $cfg = main ]; then bin=./wavekit; env=""; else bin=./wavekit-exp; env="WK_LB_FIRST=$cfg"; fi
    echo "== $row | $cfg" >> $OUT/bench.txt
    env $env timeout 60 $bin bench --backend cuda --reps 25 --only "$row" --sizes 2^20,2^24,2^28 > $OUT/one.txt 2>&1
    cat $OUT/one.txt >> $OUT/bench.txt
    grep -E "^scan" $OUT/one.txt | grep -v "tiles=\|blocks=\|before\|via\|pairs\|torch" | sed "s/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g; s/^/$cfg /"
  done
  date -u
done
