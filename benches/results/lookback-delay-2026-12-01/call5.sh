#!/bin/bash
# Call 5 (stop 68): no second sleep for a warp's second look-back (run_length_encode, reduce_by_key),
# against the committed delay build (f9823fe) in the same call.
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 120 ./wavekit verify --backend cuda > $OUT/verify.txt 2>&1; echo "verify rc $?"; tail -4 $OUT/verify.txt
date -u
for row in "run_length_encode runs of 8" "reduce_by_key runs of 8"; do
  for bin in before wavekit; do
    echo "== $row | $bin" >> $OUT/bench.txt
    timeout 60 ./$bin bench --backend cuda --reps 25 --only "$row" --sizes 2^20,2^24,2^28 > $OUT/one.txt 2>&1
    cat $OUT/one.txt >> $OUT/bench.txt
    grep -E "^(run_length|reduce_by_key)" $OUT/one.txt | grep -v "tiles=\|blocks=\|before\|via\|torch" | sed "s/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g; s/^/$bin /"
  done
  date -u
done
