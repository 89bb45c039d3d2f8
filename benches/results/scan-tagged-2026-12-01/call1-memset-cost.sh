#!/bin/bash
# Call 1 (stop 65): the cost of the scan's status memset at small sizes: WK_EXTRA_MEMSET=1 adds a second one.
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B="./wavekit bench --backend cuda --reps 25"
for r in 1 2; do
  for v in 0 1; do
    if [ $v = 1 ]; then export WK_EXTRA_MEMSET=1; else unset WK_EXTRA_MEMSET; fi
    for row in "scan inclusive sum f32" "scan inclusive sum i64" "scan exclusive sum f32"; do
      $B --only "$row" --sizes 2^16,2^20,2^24 >> $OUT/round-$r-extra$v.txt 2>&1
    done
    grep -E "^scan" $OUT/round-$r-extra$v.txt | grep -v "tiles=\|blocks=" | sed "s/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g; s/^/r$r x$v /"
  done
done
date -u
