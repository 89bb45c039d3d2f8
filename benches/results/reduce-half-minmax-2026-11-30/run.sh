#!/bin/bash
# Device run: the 16-bit Min / Max folded on the loaded words' bits (stop 63, run 2).
ROOT=$PWD
mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
python3 scripts/bench_peers.py --only "half max" --sizes 2^20,2^24,2^28 --reps 15 2>&1 | tee $OUT/torch-half-max-1.txt | tail -8
cd /tmp/q
cuobjdump -sass ./wavekit 2>/dev/null | awk '/Function :/ {p = ($0 ~ /reduce_kernelILi3EfLj4ENS_6wk_f16ES2_Lb[01]ELb[01]E/)} p' > $OUT/sass-max-f16.txt
awk '/Function :/ {if (f) print n, mn, pr, cv, f; f=$3; n=0; mn=0; pr=0; cv=0} /\/\*[0-9a-f]+\*\/ / {n++} /MNMX/ {mn++} /PRMT/ {pr++} /F2F|HADD2.F32/ {cv++} END {print n, mn, pr, cv, f}' $OUT/sass-max-f16.txt | sed 's/^/sass instr mnmx prmt cvt: /' | cut -c1-60
./cuda_vs_cpu --include-ignored 2>&1 | tail -3 | tee $OUT/cuda_vs_cpu.txt
./conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; tail -3 $OUT/conformance.txt; grep -i "fail" $OUT/conformance.txt | head
compute-sanitizer --tool memcheck ./conformance_cuda --include-ignored device_reduce 2>&1 | tail -2 | tee $OUT/memcheck.txt
B="./wavekit bench --backend cuda --reps 15"
for r in 1 2; do
  for row in "reduce max two" "reduce max f16" "reduce max bf16" "reduce min f16" "reduce sum f16"; do
    $B --only "$row" --sizes 2^20,2^24,2^26,2^28 >> $OUT/round-$r.txt 2>&1
  done
  grep -E "^reduce" $OUT/round-$r.txt | sed "s/cuda:0 (NVIDIA H200)//; s/  */ /g"
done
cd $ROOT
python3 scripts/bench_peers.py --only "half max" --sizes 2^20,2^24,2^28 --reps 15 2>&1 | tee $OUT/torch-half-max-2.txt | tail -8
date -u
