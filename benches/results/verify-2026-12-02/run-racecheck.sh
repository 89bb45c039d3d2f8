#!/bin/bash
# racecheck over tests/cuda_sanitize.rs (0a774d5), eight processes, as scripts/gpu-test.sh's runner.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O /tmp/wavekit-bench /tmp/rc
tar -C /tmp/wavekit-bench -xJf .gpu-perf-h/tests-cuda.tar.xz
date -u > $O/racecheck.txt
OUT=/tmp/rc JOBS=8 SANITIZE_TIMEOUT=420 timeout 560 bash /tmp/wavekit-bench/tests/run.sh racecheck >> $O/racecheck.txt 2>&1
echo "runner rc=$?" >> $O/racecheck.txt
date -u >> $O/racecheck.txt
grep -E "^test .* ok$|FAILED|Race|hazard|ERROR SUMMARY|RACECHECK SUMMARY" /tmp/rc/sanitize-racecheck.log | sort | uniq -c | sort -rn | head -40 > $O/racecheck-summary.txt
grep -c "^test .* ok$" /tmp/rc/sanitize-racecheck.log >> $O/racecheck-summary.txt
cat $O/racecheck.txt
