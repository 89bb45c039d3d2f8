#!/bin/bash
# One device call for the sort work (issue #82): the lab's A/B beside CUB, the sorting tests
# and compute-sanitizer over them, the bench's sort rows, then ncu of one sort beside CUB's.
cd "$(dirname "$0")"
O=${OUT:-/tmp}
S=$SECONDS
t() { echo "[$((SECONDS - S)) s] $*" | tee -a $O/steps.txt; }
[ -f pack.tar.xz ] && python3 -c "import tarfile; tarfile.open('pack.tar.xz').extractall('.')" && t unpacked
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/device.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -n 1)
t tests; timeout 60 bin/conformance_cuda --include-ignored sort top_k > $O/t_conformance.txt 2>&1; echo "rc $?" >> $O/t_conformance.txt
timeout 60 bin/fuzz_sort --include-ignored > $O/t_fuzz_sort.txt 2>&1; echo "rc $?" >> $O/t_fuzz_sort.txt
t memcheck; timeout 60 $CS --tool memcheck --report-api-errors no --error-exitcode 9 --print-limit 20 bin/cuda_sanitize --include-ignored --test-threads=1 sort top_k > $O/memcheck.txt 2>&1; echo "rc $?" >> $O/memcheck.txt
t bench; timeout 100 ./wavekit bench --backend cuda --only sort --sizes 2^20,2^24,2^28 --reps 10 > $O/bench.txt 2>&1
t racecheck; bin/cuda_sanitize --list --include-ignored 2>/dev/null | sed -n 's/: test$//p' | grep -E "sort|top_k" > /tmp/rc.list
for j in 0 1 2 3; do (awk -v j=$j 'NR % 4 == j' /tmp/rc.list > /tmp/rc.$j; timeout 80 $CS --tool racecheck --error-exitcode 9 --print-limit 20 bin/cuda_sanitize --include-ignored --test-threads=1 --exact $(cat /tmp/rc.$j) > $O/racecheck-$j.txt 2>&1; echo "rc $?" >> $O/racecheck-$j.txt) & done; wait
t lab; ./lab 20,24,28 10 > $O/lab.txt 2>&1
t lab_prev; ./lab_prev 20,24 10 > $O/lab_prev.txt 2>&1
t lab_nohist; ./lab_nohist 20,24 5 > $O/lab_nohist.txt 2>&1
t ncu; timeout 60 ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats ./lab profile 24 > $O/ncu24.txt 2>&1
t bench-cpu; timeout 60 ./wavekit bench --backend cpu --warp 32 --only "sort keys u32" --sizes 2^26,2^28 --reps 3 > $O/bench_cpu.txt 2>&1
for o in partition arg_ reduce_by_key spmv histogram compact; do [ $((SECONDS - S)) -lt 470 ] && { t "bench85 $o"; timeout 45 ./wavekit bench --backend cuda --only $o --sizes 2^20,2^24 --reps 10 >> $O/bench85.txt 2>&1; }; done
t done
for f in $O/lab.txt $O/lab_prev.txt $O/lab_nohist.txt; do echo "== $f"; grep -v '^device' $f; done
grep -h "test result\|^rc \|FAILED\|ERROR SUMMARY\|RACECHECK SUMMARY" $O/t_*.txt $O/memcheck.txt $O/racecheck-*.txt 2>/dev/null
grep -i "sort" $O/bench.txt 2>/dev/null | head -60
tail -8 $O/bench_cpu.txt 2>/dev/null
grep -E 'x |vs' $O/bench85.txt | head -80
