#!/usr/bin/env bash
# #23, 2026-12-04: compute-sanitizer over the grouped 16-bit scan: memcheck and synccheck over
# conformance_cuda's scan and half cases, racecheck over half_scan_groups.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
O=${OUT:-/tmp/out}; mkdir -p $O
mkdir -p /tmp/wk && tar -C /tmp/wk -xJf "$here/tests-conformance.tar.xz"
T=/tmp/wk/tests/bin
command -v compute-sanitizer >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
for tool in memcheck synccheck; do
  for f in scan half; do
    echo "== $tool $f"
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 $T/conformance_cuda --include-ignored $f 2>&1 | grep -E "ERROR SUMMARY|test result|FAILED|========= (Invalid|Race|Barrier)" | head -5
    echo "rc=${PIPESTATUS[0]}"
  done
done > $O/sanitize.txt 2>&1
echo "== racecheck half_scan_groups" >> $O/sanitize.txt
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 1 $T/conformance_cuda --include-ignored half_scan_groups 2>&1 | grep -E "RACECHECK SUMMARY|ERROR SUMMARY|test result|FAILED" | head -5 >> $O/sanitize.txt
echo "rc=${PIPESTATUS[0]}" >> $O/sanitize.txt
cat $O/sanitize.txt
