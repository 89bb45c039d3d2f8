#!/bin/bash
# Call 4: racecheck over top_k's own kernels on the bench's inputs (2^16 and 2^20; every row
# checked against the CPU before it is timed; the times are racecheck's, not the kernels').
mkdir -p /tmp/wk && tar -C /tmp/wk -xJf .gpu-perf/quick.tar.xz; date -u
timeout 200 compute-sanitizer --tool racecheck --kernel-name kns=select_pass --kernel-name kns=select_choose --kernel-name kns=rank_sort /tmp/wk/wavekit bench --backend cuda --sizes 2^16,2^20 --reps 1 --only top_k 2>&1 | grep -vE '^\s*$' | tail -12 | tee $OUT/racecheck-bench.txt; date -u
