#!/bin/bash
# Call 3: racecheck over top_k's own kernels (select_pass, select_choose, rank_sort) in the
# conformance test; call 2's --kernel-regex form checked no kernel. Cut at 280 s: the suite's
# full-scale inputs under racecheck take longer (inconclusive, see call 4).
mkdir -p /tmp/wk && tar -C /tmp/wk -xJf .gpu-perf/quick.tar.xz; date -u
timeout 280 compute-sanitizer --tool racecheck --kernel-name kns=select_pass --kernel-name kns=select_choose --kernel-name kns=rank_sort /tmp/wk/conformance_cuda --include-ignored top_k 2>&1 | tail -6 | tee $OUT/racecheck.txt; date -u
