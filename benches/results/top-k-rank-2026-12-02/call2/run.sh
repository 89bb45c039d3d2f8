#!/bin/bash
# Call 2 (the committed build 5c52525): top_k's conformance again, racecheck over the kernels
# top_k launches itself (the select passes and the rank sort; the sorts it shares with sort_pairs
# run uninstrumented: call 1's racecheck of every kernel passed 60 s a test), the top_k rows and
# torch.topk in the same call.
set -u
mkdir -p /tmp/wk && tar -C /tmp/wk -xJf .gpu-perf/quick.tar.xz
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt; date -u | tee -a $OUT/device.txt
timeout 100 /tmp/wk/conformance_cuda --include-ignored top_k > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt
timeout 200 compute-sanitizer --tool racecheck --kernel-name "regex:select_pass|select_choose|rank_sort" /tmp/wk/conformance_cuda --include-ignored top_k 2>&1 | tail -5 | tee $OUT/racecheck.txt  # wrong filter syntax: compute-sanitizer printed its help (racecheck: calls 3 and 4)
date -u
timeout 150 python3 scripts/bench_peers.py --sizes 2^20,2^24,2^28 --reps 10 --only top_k > $OUT/peers.txt 2>&1; tail -20 $OUT/peers.txt
date -u
timeout 100 /tmp/wk/wavekit bench --backend cuda --sizes 2^20,2^24,2^28 --reps 10 --only top_k 2>&1 | grep -E '^top_k|refused|rror' | sed 's/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g' | tee $OUT/bench.txt
date -u
