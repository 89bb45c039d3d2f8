#!/bin/bash
# Call 5: the rank sort with 16 lanes a pair (kRankLanes; call 2's build gave each pair one
# thread): the whole conformance suite, memcheck over top_k, racecheck over top_k's own kernels
# on the bench's inputs, then the top_k rows for k = 1, 32, 1024 (two processes).
set -u
mkdir -p /tmp/wk && tar -C /tmp/wk -xJf .gpu-perf/quick.tar.xz
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt; date -u | tee -a $OUT/device.txt
timeout 60 /tmp/wk/conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt; grep -iE "^test .*FAIL|panicked" $OUT/conformance.txt | head
timeout 40 compute-sanitizer --tool memcheck /tmp/wk/conformance_cuda --include-ignored top_k 2>&1 | tail -3 | tee $OUT/memcheck.txt
timeout 40 compute-sanitizer --tool racecheck --kernel-name kns=select_pass --kernel-name kns=select_choose --kernel-name kns=rank_sort /tmp/wk/wavekit bench --backend cuda --sizes 2^16,2^20 --reps 1 --only top_k 2>&1 | grep -vE '^\s*$' | tail -4 | tee $OUT/racecheck-bench.txt
date -u
for rep in 1 2; do
  echo "== rep $rep"
  timeout 50 /tmp/wk/wavekit bench --backend cuda --sizes 2^20,2^24,2^28 --reps 10 --only "top_k 1" 2>&1 | grep -E '^top_k|refused|rror' | sed 's/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g'
  timeout 25 /tmp/wk/wavekit bench --backend cuda --sizes 2^20,2^24,2^28 --reps 10 --only "top_k 32" 2>&1 | grep -E '^top_k|refused|rror' | sed 's/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g'
done | tee $OUT/bench.txt
date -u
