#!/bin/bash
# Call 6 (stop 64): the committed build (c652427's kernels), each row its own process, four rounds.
rm -rf /tmp/q; mkdir -p /tmp/q && tar -xJf .gpu-perf/quick.tar.xz -C /tmp/q && cd /tmp/q && date -u && for r in 1 2 3 4; do for spec in "argmin f32:2^28" "argmax f64:2^28" "reduce min f64:2^20" "reduce max f64:2^20"; do row="${spec%%:*}"; sz="${spec##*:}"; ./wavekit bench --backend cuda --reps 15 --only "$row" --sizes $sz 2>&1 | grep -E "^(argm|reduce)" | sed "s/cuda:0 (NVIDIA H200)//; s/  */ /g; s/^/r$r /"; done; done | tee $OUT/repeat.txt; date -u
