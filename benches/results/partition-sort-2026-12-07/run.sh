#!/bin/bash
# #85 partition_reversed and #82 segmented sort / top-k / argsort on the GPU: verify,
# sanitizers, the rows beside CUB. STEPS picks the steps (default: all).
cd "$(dirname "$0")"
O=${OUT:-/tmp}; S=$SECONDS; STEPS=${STEPS:-"verify part sort memcheck b85 race"}
t() { echo "[$((SECONDS - S)) s] $*" | tee -a $O/steps.txt; }
on() { [[ " $STEPS " == *" $1 "* ]]; }
[ -x wavekit ] || { xz -d -k -f wavekit.xz && chmod +x wavekit; }; t unpacked
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/device.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n 1)
B() { timeout ${3:-90} ./wavekit bench --backend cuda --only "$1" --sizes ${2:-2^20,2^24,2^28} --reps 10 >> $O/bench.txt 2>&1; echo "rc $? $1" >> $O/bench.txt; }
on verify && { t verify; timeout 170 ./wavekit verify --backend cuda > $O/verify.txt 2>&1; echo "rc $?" >> $O/verify.txt; }
on part && { t part; B _reversed; B "partition f"; }
on sort && { t sort; B "segmented sort" 2^20,2^24,2^28 150; B top_k 2^20,2^24,2^28 150; B argsort; B "sort pairs" 2^28; B "sort keys u32" 2^28; }
on memcheck && { t memcheck; timeout 150 $CS --tool memcheck --report-api-errors no --error-exitcode 9 --print-limit 20 ./wavekit verify --backend cuda --scale small > $O/memcheck.txt 2>&1; echo "rc $?" >> $O/memcheck.txt; }
on b85 && { t b85; B reduce_by_key; B argm; B "compact x>0 stable"; B "histogram 256"; B "spmv power-law f32"; }
on race && { t racecheck; for q in _reversed "segmented sort" top_k; do timeout 60 $CS --tool racecheck --error-exitcode 9 --print-limit 10 ./wavekit bench --backend cuda --only "$q" --sizes 2^16 --reps 1 >> $O/racecheck.txt 2>&1; echo "rc $? $q" >> $O/racecheck.txt; done; }
t done
tail -3 $O/verify.txt 2>/dev/null; grep -iE "^test .*fail|FAILED|mismatch" $O/verify.txt 2>/dev/null | head; grep -E "x CUB|x cuSPARSE|refused|error|^rc" $O/bench.txt 2>/dev/null | grep -v "^\[backend"; tail -2 $O/memcheck.txt 2>/dev/null; grep -E "^rc|hazard|ERROR SUMMARY" $O/racecheck.txt 2>/dev/null
cd $O && tar cf res.tar *.txt
