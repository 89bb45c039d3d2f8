#!/bin/bash
# Call 4 (stop 68): the look-back's delay as committed, against main (2ad4d41) in the same call.
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
./conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt; grep -iE "^test .*FAIL|panicked" $OUT/conformance.txt | head
timeout 120 compute-sanitizer --tool memcheck ./conformance_cuda --include-ignored scan compact unique run_length runs by_key 2>&1 | tail -2 | tee $OUT/memcheck.txt
date -u
for row in "compact x>0 stable f32" "unique runs of 8" "run_length_encode runs of 8" "reduce_by_key runs of 8" "scan_by_key runs of 8" "scan inclusive sum f32" "scan inclusive sum i64" "scan inclusive sum f16"; do
  for bin in before wavekit; do
    echo "== $row | $bin" >> $OUT/bench.txt
    timeout 60 ./$bin bench --backend cuda --reps 25 --only "$row" --sizes 2^20,2^24,2^28 > $OUT/one.txt 2>&1
    cat $OUT/one.txt >> $OUT/bench.txt
    grep -E "^(compact|unique|run_length|reduce_by_key|scan)" $OUT/one.txt | grep -v "tiles=\|blocks=\|before\|via\|pairs\|torch" | sed "s/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g; s/^/$bin /"
  done
  date -u
done
