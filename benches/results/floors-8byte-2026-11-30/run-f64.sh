#!/usr/bin/env bash
# Device run of the 8-byte floors: tests, sanitizer, then the f64 rows with their before rows.
set -u
mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q
cd /tmp/q
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
date -u | tee -a $OUT/device.txt
timeout 200 ./conformance_cuda --include-ignored > $OUT/tests.txt 2>&1; echo "tests rc=$?"; grep "test result" $OUT/tests.txt
timeout 150 compute-sanitizer --tool memcheck --print-limit 5 ./conformance_cuda --include-ignored --test-threads 1 cuda_native::compact cuda_native::partition cuda_native::run_length cuda_native::unique cuda_native::device_scan > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?"; tail -4 $OUT/memcheck.txt
for row in "compact x>0 stable f64" "compact x>0 unordered f64" "partition f64" "(before) f64" "partition f32"; do
  f=$(echo "$row" | tr -c 'a-z0-9\n' '_')
  timeout 150 ./wavekit bench --backend cuda --only "$row" --sizes 2^20,2^24,2^28 --reps 15 --csv $OUT/$f.csv > $OUT/$f.txt 2>&1
  echo "rc=$? $row"; grep -v "^ *$" $OUT/$f.txt | tail -8
done
date -u
