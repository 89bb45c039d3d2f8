#!/bin/bash
# Device run: the 16-bit argmin / argmax select on the bits (stop 63, run 4).
ROOT=$PWD
mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
python3 scripts/bench_peers.py --only "argmax" --sizes 2^20,2^24,2^28 --reps 15 2>&1 | tee $OUT/torch-argmax-1.txt | grep -E "f16|bf16"
cd /tmp/q
./cuda_vs_cpu --include-ignored 2>&1 | tail -3 | tee $OUT/cuda_vs_cpu.txt
./conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; tail -3 $OUT/conformance.txt; grep -i "fail" $OUT/conformance.txt | head
compute-sanitizer --tool memcheck ./conformance_cuda --include-ignored arg_reduce 2>&1 | tail -2 | tee $OUT/memcheck.txt
compute-sanitizer --tool memcheck ./conformance_cuda --include-ignored device_reduce 2>&1 | tail -2 | tee -a $OUT/memcheck.txt
for r in 1 2; do
  for row in "argmax f16" "argmax bf16" "argmin f32" "reduce max f16" "reduce max bf16" "reduce sum f16"; do
    ./wavekit bench --backend cuda --reps 15 --only "$row" --sizes 2^20,2^24,2^28 >> $OUT/round-$r.txt 2>&1
  done
  grep -E "^(argm|reduce)" $OUT/round-$r.txt | sed "s/cuda:0 (NVIDIA H200)//; s/  */ /g"
done
cd $ROOT
python3 scripts/bench_peers.py --only "argmax" --sizes 2^20,2^24,2^28 --reps 15 2>&1 | tee $OUT/torch-argmax-2.txt | grep -E "f16|bf16"
date -u
