#!/bin/bash
# torch's 16-bit sum and ours in one device call (stop 62).
ROOT=$PWD
mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q || exit 1
date -u
python3 scripts/bench_peers.py --only "half sum" --sizes 2^20,2^24,2^28 --reps 15 2>&1 | tee $OUT/torch-half-sum.txt | tail -12
cd /tmp/q
for r in 1 2; do
  for row in "reduce sum f16" "reduce sum bf16"; do
    ./wavekit bench --backend cuda --reps 15 --only "$row" --sizes 2^20,2^24,2^28 2>&1 | grep -E "^reduce" | tee -a $OUT/ours.txt
  done
done
cd $ROOT
python3 scripts/bench_peers.py --only "half sum" --sizes 2^20,2^24,2^28 --reps 15 2>&1 | tee $OUT/torch-half-sum-2.txt | tail -8
date -u
