#!/usr/bin/env bash
# Staged run, call 7: compute-sanitizer memcheck, synccheck and initcheck over tests/cuda_sanitize.rs
# (every conformance case on the CUDA backend) and memcheck over cuda_probes, as
# scripts/gpu-test.sh's sanitize runner does (its racecheck part not run: device time).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
R=/tmp/res7; rm -rf $R; mkdir -p $R
finish() { tar -C /tmp -czf "$OUT/call7.tar.gz" res7; }
trap finish EXIT
mkdir -p /tmp/tt && tar -C /tmp/tt -xJf "$here/tests-a.tar.xz"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck synccheck initcheck; do
  echo "== compute-sanitizer --tool $tool: cuda_sanitize"
  timeout 100 "$CS" --tool "$tool" --report-api-errors no --error-exitcode 9 --print-limit 20 \
    /tmp/tt/tests/bin/cuda_sanitize --include-ignored --test-threads=1 > $R/sanitize-$tool.log 2>&1
  echo "rc=$?"; grep -E '^test result|SUMMARY|^test .*FAILED' $R/sanitize-$tool.log
done 2>&1 | tee $R/sanitize.txt
echo "== compute-sanitizer --tool memcheck: cuda_probes" | tee -a $R/sanitize.txt
timeout 60 "$CS" --tool memcheck --report-api-errors no --error-exitcode 9 --print-limit 20 \
  /tmp/tt/tests/bin/cuda_probes --include-ignored --test-threads=1 > $R/probes-memcheck.log 2>&1
echo "rc=$?" | tee -a $R/sanitize.txt; grep -E '^test result|SUMMARY' $R/probes-memcheck.log | tee -a $R/sanitize.txt
