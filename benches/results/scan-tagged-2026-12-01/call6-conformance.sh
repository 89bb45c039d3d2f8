#!/bin/bash
# Call 6 (stop 66): the final build's conformance_cuda, with compact_reused and by_key_reused.
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q; cd /tmp/q || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
./conformance_cuda --include-ignored > $OUT/conformance.txt 2>&1; grep "test result" $OUT/conformance.txt; grep -iE "^test .*FAIL|panicked" $OUT/conformance.txt | head
grep -E "_reused" $OUT/conformance.txt
compute-sanitizer --tool racecheck ./conformance_cuda --include-ignored _reused 2>&1 | tail -2
compute-sanitizer --tool memcheck ./conformance_cuda --include-ignored _reused 2>&1 | tail -2
date -u
