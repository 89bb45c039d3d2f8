#!/usr/bin/env bash
# #23, 2026-12-04 (third session): compute-sanitizer over the runs kernel: memcheck, synccheck
# and racecheck over conformance_cuda's runs cases (run_length_encode, unique, unique_by_key,
# runs_reused), memcheck over cuda_vs_cpu's wide shapes.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
O=${OUT:-/tmp/out}; mkdir -p $O
mkdir -p /tmp/wk && tar -C /tmp/wk -xJf "$here/tests-conformance.tar.xz"
T=/tmp/wk/tests/bin
command -v compute-sanitizer >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
for tool in memcheck synccheck racecheck; do
  for f in run_length_encode unique runs_reused; do
    echo "== $tool $f"
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 $T/conformance_cuda --include-ignored cuda_native::$f 2>&1 | grep -E "SUMMARY|test result|FAILED|========= (Invalid|Race|Barrier)" | head -5
    echo "rc=${PIPESTATUS[0]}"
  done
done > $O/sanitize.txt 2>&1
echo "== memcheck cuda_vs_cpu runs_at_every_shape" >> $O/sanitize.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 $T/cuda_vs_cpu --include-ignored runs_at_every_shape 2>&1 | grep -E "SUMMARY|test result|FAILED" | head -5 >> $O/sanitize.txt
echo "rc=${PIPESTATUS[0]}" >> $O/sanitize.txt
cat $O/sanitize.txt
