#!/bin/bash
# Verify 0a774d5 on the GPU: every carried CUDA test binary, then memcheck over the scan cases.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
O=${OUT:-/tmp/out}; mkdir -p $O
OUT=$O STEPS=tests TEST_TIMEOUT=200 timeout 430 bash "$here/bench.sh" device
T=/tmp/wavekit-bench/tests/bin
command -v compute-sanitizer >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
timeout 140 compute-sanitizer --tool memcheck --error-exitcode 1 $T/conformance_cuda --include-ignored scan > /tmp/mc.txt 2>&1
echo "rc=$?" >> /tmp/mc.txt
tail -n 12 /tmp/mc.txt > $O/memcheck.txt
cat $O/memcheck.txt
