#!/bin/bash
# Call 5 (stop 66): stable compaction, the runs and by_key with tagged statuses and each block's
# status line prefetched to L2; "before" = the same tree without the prefetch and with by_key
# zeroing its statuses every call (the old launcher), built in the same session.
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
./conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt; grep -iE "^test .*FAIL|panicked" $OUT/conformance.txt | head
./cuda_vs_cpu --include-ignored 2>&1 | grep "test result" | tee $OUT/cuda_vs_cpu.txt
compute-sanitizer --tool memcheck ./conformance_cuda --include-ignored scan compact unique run_length runs by_key 2>&1 | tail -2 | tee $OUT/memcheck.txt
compute-sanitizer --tool racecheck ./conformance_cuda --include-ignored _reused 2>&1 | tail -2 | tee $OUT/racecheck.txt
date -u
for r in 1 2; do
  for bin in before wavekit; do
    for row in "compact x>0 stable f32" "unique runs of 8" "run_length_encode runs of 8" "reduce_by_key runs of 8" "scan_by_key runs of 8" "scan inclusive sum f32"; do
      ./$bin bench --backend cuda --reps 25 --only "$row" --sizes 2^20,2^24,2^28 >> $OUT/round-$r-$bin.txt 2>&1
    done
    grep -E "^(compact|unique|run_length|reduce_by_key|scan)" $OUT/round-$r-$bin.txt | grep -v "tiles=\|blocks=\|torch" | sed "s/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g; s/^/r$r $bin /"
    date -u
  done
done
