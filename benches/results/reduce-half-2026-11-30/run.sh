#!/bin/bash
# Device run: 16-bit reduce, four tiles' partials at once; Min / Max one tile a block (stop 62).
mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q && cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
./cuda_vs_cpu --include-ignored 2>&1 | tail -4 | tee $OUT/cuda_vs_cpu.txt
./conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; tail -3 $OUT/conformance.txt
compute-sanitizer --tool memcheck ./cuda_vs_cpu --include-ignored device_reduce 2>&1 | tail -4 | tee $OUT/memcheck.txt
B="./wavekit bench --backend cuda --reps 15"
for r in 1 2; do
  for row in "reduce sum two" "reduce max two" "reduce sum f16" "reduce sum bf16" "reduce max f16"; do
    $B --only "$row" --sizes 2^20,2^24,2^26,2^28 >> $OUT/round-$r.txt 2>&1
  done
  grep -E "^reduce" $OUT/round-$r.txt | cut -c1-200
done
date -u
