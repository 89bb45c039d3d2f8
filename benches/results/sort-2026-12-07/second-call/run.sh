#!/bin/bash
# Segmented sort's block path, the shaped launchers and the 2^28 sort rows on the GPU (#82, #84).
cd "$(dirname "$0")"
O=${OUT:-/tmp}; S=$SECONDS
t() { echo "[$((SECONDS - S)) s] $*" | tee -a $O/steps.txt; }
xz -d -k -f wavekit.xz && chmod +x wavekit && t unpacked
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/device.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n 1)
t verify; timeout 150 ./wavekit verify --backend cuda > $O/verify.txt 2>&1; echo "rc $?" >> $O/verify.txt
t segsort; timeout 60 ./wavekit bench --backend cuda --only "segmented sort" --sizes 2^20,2^24,2^28 --reps 10 > $O/bench.txt 2>&1
t sort28; timeout 60 ./wavekit bench --backend cuda --only "sort pairs" --sizes 2^28 --reps 10 >> $O/bench.txt 2>&1
timeout 60 ./wavekit bench --backend cuda --only "sort keys u64" --sizes 2^28 --reps 10 >> $O/bench.txt 2>&1
t shapes; for o in scan reduce; do timeout 40 ./wavekit bench --backend cuda --only $o --sizes 2^24 --reps 5 >> $O/shapes.txt 2>&1; done
t memcheck; timeout 150 $CS --tool memcheck --report-api-errors no --error-exitcode 9 --print-limit 20 ./wavekit verify --backend cuda --scale small > $O/memcheck.txt 2>&1; echo "rc $?" >> $O/memcheck.txt
t done
tail -4 $O/verify.txt; grep -E "segmented sort|sort pairs|sort keys u64" $O/bench.txt | grep -v "^\[backend"; grep -c "x default" $O/shapes.txt; grep -i "fail\|mismatch\|error" $O/shapes.txt | head -5; tail -3 $O/memcheck.txt
