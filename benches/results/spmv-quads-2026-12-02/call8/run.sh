#!/bin/bash
# Stop 71, call 8: the committed build with aligned gather loads: conformance, sanitizers over SpMV, the public SpMV rows.
set -u
mkdir -p /tmp/wk && tar -C /tmp/wk -xJf .gpu-perf/quick.tar.xz
W=/tmp/wk/wavekit
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt; date -u | tee -a $OUT/device.txt
export WAVEKIT_CUSPARSE="$(find /usr/local /opt -name 'libcusparse.so.12' 2>/dev/null | head -n 1)"
export LD_LIBRARY_PATH="$(dirname "$WAVEKIT_CUSPARSE"):${LD_LIBRARY_PATH:-}"
timeout 120 /tmp/wk/conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt; grep -iE "^test .*FAIL|panicked" $OUT/conformance.txt | head
timeout 60 /tmp/wk/cuda_vs_cpu --include-ignored 2>&1 | tail -3 | tee $OUT/conf.txt
timeout 60 compute-sanitizer --tool memcheck /tmp/wk/conformance_cuda --include-ignored spmv 2>&1 | tail -3 | tee $OUT/memcheck.txt
timeout 60 compute-sanitizer --tool racecheck /tmp/wk/conformance_cuda --include-ignored spmv 2>&1 | tail -3 | tee $OUT/racecheck.txt
date -u
for r in "spmv regular 8..64 f32" "spmv power-law f32"; do
  timeout 100 $W bench --backend cuda --sizes 2^20,2^24,2^28 --reps 15 --only "$r" 2>&1 | grep -E '^spmv|refused|rror' | sed 's/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g'
done | tee $OUT/bench.txt
date -u
