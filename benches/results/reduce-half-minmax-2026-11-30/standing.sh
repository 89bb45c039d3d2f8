#!/bin/bash
# Where #23's CUB-compared rows stand on the H200 with the current build (stop 63): two rounds.
mkdir -p /tmp/q && [ -x /tmp/q/wavekit ] || tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
for r in 1 2; do
  for row in "unique runs of 8 u32" "run_length_encode runs of 8 u32" "reduce_by_key runs of 8 f32" "scan_by_key runs of 8 f32" "argmin f32" "argmax f64" "argmax f16" "argmax bf16" "partition f32" "partition f64"; do
    timeout 100 ./wavekit bench --backend cuda --reps 15 --only "$row" --sizes 2^20,2^24,2^28 >> $OUT/standing-$r.txt 2>&1
  done
  grep -E "^(unique|run_length|reduce_by|scan_by|argm|partition)" $OUT/standing-$r.txt | sed "s/cuda:0 (NVIDIA H200)//; s/  */ /g"
done
date -u
