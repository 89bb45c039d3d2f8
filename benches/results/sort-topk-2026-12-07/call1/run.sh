#!/bin/bash
# Branch segthread (6fe1aa5: main c6c9eb8 + the onesweep pass's integer flip and pointer bases,
# segments of up to 8 keys one a thread, the device path past n/48) on the GPU: verify, the sort and segmented rows beside
# CUB, sanitizers over them, ncu of top-k's select kernels, issue #85's rows. STEPS picks.
cd "$(dirname "$0")"
O=${OUT:-/tmp}/r; mkdir -p $O; S=$SECONDS
STEPS=${STEPS:-"verify keys seg memcheck race pairs ncu b85"}
t() { echo "[$((SECONDS - S)) s] $*" | tee -a $O/steps.txt; }
on() { [[ " $STEPS " == *" $1 "* ]]; }
[ -x wavekit ] || { xz -d -k -f wavekit.xz && chmod +x wavekit; }; t unpacked
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/device.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n 1)
B() { timeout ${3:-60} ./wavekit bench --backend cuda --only "$1" --sizes ${2:-2^20,2^24,2^28} --reps 10 >> $O/bench.txt 2>&1; echo "rc $? $1" >> $O/bench.txt; }
on verify && { t verify; timeout 60 ./wavekit verify --backend cuda > $O/verify.txt 2>&1; echo "rc $?" >> $O/verify.txt; }
on keys && { t keys; B "sort keys" 2^20,2^24,2^28 120; }
on seg && { t seg; B "segmented sort" 2^20,2^24,2^28 90; }
on memcheck && { t memcheck; timeout 80 $CS --tool memcheck --report-api-errors no --error-exitcode 9 --print-limit 20 ./wavekit verify --backend cuda --scale small > $O/memcheck.txt 2>&1; echo "rc $?" >> $O/memcheck.txt; }
on race && { t racecheck; for q in "sort keys u32" "sort keys f32" "sort pairs" "segmented sort"; do timeout 30 $CS --tool racecheck --error-exitcode 9 --print-limit 10 ./wavekit bench --backend cuda --only "$q" --sizes 2^16 --reps 1 >> $O/racecheck.txt 2>&1; echo "rc $? $q" >> $O/racecheck.txt; done; }
on pairs && { t pairs; B "sort pairs" 2^20,2^24,2^28 50; B argsort 2^20,2^24,2^28 50; }
on ncu && { t ncu; timeout 60 ncu -k regex:select_ -c 12 --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis ./wavekit bench --backend cuda --only "top_k 1024" --sizes 2^28 --reps 1 > $O/ncu_topk.txt 2>&1; echo "rc $?" >> $O/ncu_topk.txt; }
on b85 && { t b85; B reduce_by_key 2^20,2^24 30; B argm 2^20,2^24 30; B "compact x>0 stable" 2^20,2^24 30; B "histogram 256" 2^20,2^24 30; B "spmv power-law f32" 2^20,2^24 30; B "_reversed" 2^20 30; }
t done
tail -3 $O/verify.txt 2>/dev/null; grep -E "x CUB|x cuSPARSE|refused|^rc" $O/bench.txt 2>/dev/null | cut -c1-25,100-; tail -2 $O/memcheck.txt 2>/dev/null; grep -E "^rc|RACECHECK SUMMARY" $O/racecheck.txt 2>/dev/null; grep -E "select_|Duration|DRAM Through|Memory Through|Compute \(SM\)|Registers|Achieved Occ" $O/ncu_topk.txt 2>/dev/null | head -60
cd $O && tar cf ../res.tar *.txt && cd .. && rm -rf $O
