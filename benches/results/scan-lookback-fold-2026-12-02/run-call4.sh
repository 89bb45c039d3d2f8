#!/bin/bash
# #23: the look-back's fold: default, vector stash loads (LDS.128), inclusive prefixes published
# every 64 tiles of a fold, no fold (wrong sums, timing only); 2^28 f16, same-run D2D copy.
O=${OUT:-/tmp/out}; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/device.txt
for r in 1 2; do for b in drv drv_vec drv_help64 drv_nofold; do .gpu-perf-h/$b $b; done; done > $O/fold.txt 2>&1
cat $O/fold.txt
