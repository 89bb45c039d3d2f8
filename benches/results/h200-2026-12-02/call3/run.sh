#!/usr/bin/env bash
# Staged run, call 3: the CUDA conformance tests, then the CPU backend on the machine's cores.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
R=/tmp/res3; rm -rf $R; mkdir -p $R
finish() { tar -C /tmp -czf "$OUT/call3.tar.gz" res3; }
trap finish EXIT
mkdir -p /tmp/wavekit-bench && tar -C /tmp/wavekit-bench -xJf "$here/tests-small.tar.xz"
T=/tmp/wavekit-bench/tests/bin
for t in conformance_cuda cuda_vs_cpu cuda_lookback; do
  echo "== $t"; timeout 150 $T/$t --include-ignored 2>&1 | tail -n 15
done > $R/tests.log 2>&1
grep -E '^== |^test result|FAILED|panicked' $R/tests.log
OUT=$R STEPS="cpu" CPU_SIZES=2^28 CPU_TIMEOUT=75 CPU_ONLY="reduce sum;reduce min;reduce max;scan inclusive sum;scan exclusive sum;compact x>0 stable;histogram 256 uniform" timeout 400 bash "$here/bench.sh" device
