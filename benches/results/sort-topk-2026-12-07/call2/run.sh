#!/bin/bash
# main cb7d749 on the GPU: histogram blocks of 8192 keys, top-k's staged select pass, segmented sort's staged thread kernel
# (and the partition classify_items change since the last GPU run): verify, memcheck,
# racecheck, the rows beside CUB and torch, ncu of the select passes. STEPS picks.
cd "$(dirname "$0")"
O=${OUT:-/tmp}/r; mkdir -p $O; S=$SECONDS
STEPS=${STEPS:-"verify topk seg hist peers memcheck race ncu"}
t() { echo "[$((SECONDS - S)) s] $*" | tee -a $O/steps.txt; }
on() { [[ " $STEPS " == *" $1 "* ]]; }
[ -x wavekit ] || { xz -d -k -f wavekit.xz && chmod +x wavekit; }; t unpacked
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/device.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n 1)
B() { timeout ${3:-60} ./wavekit bench --backend cuda --only "$1" --sizes ${2:-2^20,2^24,2^28} --reps 10 >> $O/bench.txt 2>&1; echo "rc $? $1" >> $O/bench.txt; }
on verify && { t verify; timeout 60 ./wavekit verify --backend cuda > $O/verify.txt 2>&1; echo "rc $?" >> $O/verify.txt; }
on topk && { t topk; B top_k 2^20,2^24,2^28 150; }
on seg && { t seg; B "segmented sort" 2^20,2^24,2^28 60; }
on hist && { t hist; B "histogram 256" 2^20,2^24,2^28 60; }
on peers && { t peers; timeout 90 python3 bench_peers.py --only "top_k" --sizes 2^20,2^24,2^28 --reps 10 > $O/peers.txt 2>&1; echo "rc $?" >> $O/peers.txt; }
on memcheck && { t memcheck; timeout 80 $CS --tool memcheck --report-api-errors no --error-exitcode 9 --print-limit 20 ./wavekit verify --backend cuda --scale small > $O/memcheck.txt 2>&1; echo "rc $?" >> $O/memcheck.txt; }
on race && { t racecheck; for q in "top_k" "segmented sort" "partition f" "histogram 256"; do timeout 40 $CS --tool racecheck --error-exitcode 9 --print-limit 10 ./wavekit bench --backend cuda --only "$q" --sizes 2^16 --reps 1 >> $O/racecheck.txt 2>&1; echo "rc $? $q" >> $O/racecheck.txt; done; }
on ncu && { t ncu; timeout 60 ncu -k regex:select_ -c 6 --section SpeedOfLight --section Occupancy --section WarpStateStats ./wavekit bench --backend cuda --only "top_k 1024" --sizes 2^28 --reps 1 > $O/ncu_topk.txt 2>&1; echo "rc $?" >> $O/ncu_topk.txt; }
t done
tail -3 $O/verify.txt 2>/dev/null; grep -E "x CUB|refused|HistogramEven|^rc" $O/bench.txt 2>/dev/null | cut -c1-25,60-; grep -E "top_k|rc" $O/peers.txt; tail -2 $O/memcheck.txt 2>/dev/null; grep -E "^rc|RACECHECK SUMMARY" $O/racecheck.txt 2>/dev/null; grep -E "select_|Duration|DRAM Through|Compute \(SM\)|Achieved Occ|Stall" $O/ncu_topk.txt 2>/dev/null | cut -c1-110 | head -40
cd $O && tar cf ../res.tar *.txt && cd .. && rm -rf $O
