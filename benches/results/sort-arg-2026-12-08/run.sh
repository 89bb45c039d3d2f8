#!/bin/bash
# main d7021cd (wavekit: + argmin in one launch, skewed sort rows), the same with kOnesweepMatchOr on GPUs (wavekit-or), ee87fa1 (wavekit-ee).
cd "$(dirname "$0")"
O=${OUT:-/tmp}/r; mkdir -p $O; S=$SECONDS; END=${END:-470}
RACE=${RACE:-"top_k sort+keys+u32 sort+keys+f16 segmented+sort histogram+256"}
STEPS=${STEPS:-"verify arg keys keysor memcheck race topk"}
t() { echo "[$((SECONDS - S)) s] $*" | tee -a $O/steps.txt; }
on() { [[ " $STEPS " == *" $1 "* ]] && [ $((SECONDS - S)) -lt $((END - 20)) ]; }
left() { local l=$((END - (SECONDS - S))); [ $l -lt $1 ] && echo $l || echo $1; }
for b in wavekit wavekit-or wavekit-ee; do [ -x $b ] || { xz -d -k -f $b.xz && chmod +x $b; }; done; t unpacked
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/device.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n 1)
B() { timeout $(left ${3:-60}) ./${4:-wavekit} bench --backend cuda --only "$1" --sizes ${2:-2^20,2^24,2^28} --reps 10 >> $O/${5:-bench}.txt 2>&1; echo "rc $? $1" >> $O/${5:-bench}.txt; }
on verify && { t verify; timeout $(left 90) ./wavekit verify --backend cuda > $O/verify.txt 2>&1; echo "rc $?" >> $O/verify.txt; }
on memcheck && { t memcheck; timeout $(left 120) $CS --tool memcheck --report-api-errors no --error-exitcode 9 --print-limit 20 ./wavekit verify --backend cuda --scale small > $O/memcheck.txt 2>&1; echo "rc $?" >> $O/memcheck.txt; }
on race && { t racecheck; for q in $RACE; do timeout $(left 45) $CS --tool racecheck --error-exitcode 9 --print-limit 10 ./wavekit bench --backend cuda --only "${q//+/ }" --sizes 2^16 --reps 1 >> $O/racecheck.txt 2>&1; echo "rc $? $q" >> $O/racecheck.txt; done; }
on arg && { t arg; B "argm" 2^20,2^24,2^28 40; }
on keys && { t keys; B "sort keys" 2^20,2^24,2^28 200; }
on keysor && { t keysor; for r in "sort keys u32" "sort keys f32" "sort keys u64" "sort keys low-entropy" "sort keys skewed"; do B "$r" 2^20,2^24,2^28 60 wavekit-or or; done; }
on topk && { t topk; B top_k 2^20,2^24,2^28 170; }
on topkee && { t topkee; B "top_k 32" 2^20,2^24,2^28 60 wavekit-ee ee; }
on keysee && { t keysee; B "sort keys u32" 2^20,2^24,2^28 60 wavekit-ee ee; }
on pairs && { t pairs; B "sort pairs" 2^20,2^24,2^28 60; B "argsort" 2^20,2^24,2^28 90; }
on pairsor && { t pairsor; B "sort pairs" 2^20,2^24,2^28 60 wavekit-or or; }
on hist && { t hist; B "histogram 256" 2^20,2^24,2^28 60; }
on seg && { t seg; B "segmented sort" 2^20,2^24,2^28 90; }
on peers && { t peers; timeout $(left 90) python3 bench_peers.py --only "top_k" --sizes 2^20,2^24,2^28 --reps 10 > $O/peers.txt 2>&1; echo "rc $?" >> $O/peers.txt; }
on ncu && { t ncu; timeout $(left 60) ncu -k regex:select_ -c 8 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats ./wavekit bench --backend cuda --only "top_k 1024" --sizes 2^28 --reps 1 > $O/ncu_topk.txt 2>&1; echo "rc $?" >> $O/ncu_topk.txt;
  timeout $(left 60) ncu -k regex:[Oo]nesweep -c 16 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats ./wavekit bench --backend cuda --only "sort keys u32" --sizes 2^24 --reps 1 > $O/ncu_sort.txt 2>&1; echo "rc $?" >> $O/ncu_sort.txt; }
t done
tail -3 $O/verify.txt 2>/dev/null; grep -hE "x CUB|refused|HistogramEven|^rc" $O/bench.txt $O/or.txt $O/ee.txt 2>/dev/null | cut -c1-150; grep -E "top_k|rc" $O/peers.txt 2>/dev/null; tail -2 $O/memcheck.txt 2>/dev/null; grep -E "^rc|RACECHECK SUMMARY" $O/racecheck.txt 2>/dev/null
