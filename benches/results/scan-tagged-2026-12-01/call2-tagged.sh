#!/bin/bash
# Call 2 (stop 65): the device scan with tagged statuses (no zeroing launch per call).
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
./conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt; grep -iE "^test .*FAIL|panicked" $OUT/conformance.txt | head
./cuda_vs_cpu --include-ignored 2>&1 | grep "test result" | tee $OUT/cuda_vs_cpu.txt
compute-sanitizer --tool memcheck ./conformance_cuda --include-ignored scan 2>&1 | tail -2 | tee $OUT/memcheck.txt
compute-sanitizer --tool racecheck ./conformance_cuda --include-ignored device_scan_reused 2>&1 | tail -2 | tee $OUT/racecheck.txt
date -u
B="./wavekit bench --backend cuda --reps 25"
for r in 1 2; do
  for row in "scan inclusive sum f32" "scan inclusive sum i32" "scan inclusive sum i64" "scan exclusive sum f32" "scan inclusive sum f16"; do
    $B --only "$row" --sizes 2^16,2^20,2^24,2^28 >> $OUT/round-$r.txt 2>&1
  done
  grep -E "^scan" $OUT/round-$r.txt | sed "s/cuda:0 (NVIDIA H[0-9]*)//; s/  */ /g; s/^/r$r /"
done
date -u
