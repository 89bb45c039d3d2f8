#!/bin/bash
# Top-k's small answers placed in one launch: conformance, sanitizers over top_k, the top_k rows of
# the build before (old) and after (new), interleaved, and torch.topk in the same call.
set -u
mkdir -p /tmp/wk && tar -C /tmp/wk -xJf .gpu-perf/quick.tar.xz
xz -dc .gpu-perf/old/wavekit.xz > /tmp/wk/wavekit-old && chmod +x /tmp/wk/wavekit-old
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt; date -u | tee -a $OUT/device.txt
timeout 150 /tmp/wk/conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt; grep -iE "^test .*FAIL|panicked" $OUT/conformance.txt | head
echo "cuda_vs_cpu not carried this call (64 MiB)" > $OUT/cuda_vs_cpu.txt
timeout 90 compute-sanitizer --tool memcheck /tmp/wk/conformance_cuda --include-ignored top_k 2>&1 | tail -4 | tee $OUT/memcheck.txt
timeout 90 compute-sanitizer --tool racecheck /tmp/wk/conformance_cuda --include-ignored top_k 2>&1 | tail -4 | tee $OUT/racecheck.txt
date -u
for rep in 1 2; do
  for w in wavekit-old wavekit; do
    echo "== $w (rep $rep)"
    timeout 120 /tmp/wk/$w bench --backend cuda --sizes 2^20,2^24,2^28 --reps 10 --only top_k 2>&1 | grep -E '^top_k|refused|rror' | sed 's/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g'
  done
done | tee $OUT/bench.txt
date -u
timeout 150 python3 scripts/bench_peers.py --sizes 2^20,2^24,2^28 --reps 10 --only top_k 2>&1 | tail -20 | tee $OUT/peers.txt
date -u
