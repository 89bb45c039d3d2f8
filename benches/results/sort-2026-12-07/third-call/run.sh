#!/bin/bash
# main after the GPU backend's checked launches and ABI 22 (#84): the conformance suite on the
# GPU, memcheck over it, and the host cost of the checked launches beside the 9df6337 binary.
cd "$(dirname "$0")"
O=${OUT:-/tmp}; S=$SECONDS
t() { echo "[$((SECONDS - S)) s] $*" | tee -a $O/steps.txt; }
xz -d -k -f wavekit.xz && xz -d -k -f old.xz && chmod +x wavekit old && t unpacked
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/device.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n 1)
t verify; timeout 150 ./wavekit verify --backend cuda > $O/verify.txt 2>&1; echo "rc $?" >> $O/verify.txt
t memcheck; timeout 150 $CS --tool memcheck --report-api-errors no --error-exitcode 9 --print-limit 20 ./wavekit verify --backend cuda --scale small > $O/memcheck.txt 2>&1; echo "rc $?" >> $O/memcheck.txt
t ab; for r in 1 2; do for b in old wavekit; do for o in "reduce sum" "scan inclusive sum" "compact x>0 stable" "sort keys"; do echo "== $b $o" >> $O/ab.txt; timeout 40 ./$b bench --backend cuda --only "$o" --sizes 2^16,2^20 --reps 20 2>/dev/null | grep -v "^\[backend" >> $O/ab.txt; done; done; done
t done
tail -3 $O/verify.txt; tail -2 $O/memcheck.txt; grep -E "^== |f32 +2\^|u32 +2\^" $O/ab.txt | head -60
