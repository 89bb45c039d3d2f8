#!/usr/bin/env bash
# Staged run, call 5: compute-sanitizer memcheck over the look-back collectives' and top_k's
# conformance cases, then the other CUDA test binaries.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
R=/tmp/res5; rm -rf $R; mkdir -p $R
finish() { tar -C /tmp -czf "$OUT/call5.tar.gz" res5; }
trap finish EXIT
mkdir -p /tmp/tt && tar -C /tmp/tt -xJf "$here/tests-small.tar.xz"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for f in scan compact run unique by_key partition top_k spmv; do echo "== memcheck conformance_cuda $f"; timeout 100 $CS --tool memcheck --error-exitcode 9 /tmp/tt/tests/bin/conformance_cuda --include-ignored $f 2>&1 | grep -E "test result|ERROR SUMMARY|FAILED|panicked"; echo "rc=${PIPESTATUS[0]}"; done 2>&1 | tee $R/memcheck.txt
for a in tests-a.tar.xz tests-b.tar.xz; do [ -f "$here/$a" ] && tar -C /tmp/tt -xJf "$here/$a"; done
s=$(date +%s)
for t in cuda_emulation cuda_host cuda_interop cuda_launch cuda_probes cuda_rtc cuda_sanitize cuda_streams zero_alloc threads fuzz_queued fuzz_streams; do
  [ $(( $(date +%s) - s )) -lt 300 ] || { echo "== $t: not run (time)"; continue; }
  [ -x /tmp/tt/tests/bin/$t ] || { echo "== $t: not carried"; continue; }
  echo "== $t"; timeout 120 /tmp/tt/tests/bin/$t --include-ignored 2>&1 | grep -E "test result|FAILED|panicked|failures:"; echo "rc=${PIPESTATUS[0]}"
done 2>&1 | tee $R/tests-rest.txt
