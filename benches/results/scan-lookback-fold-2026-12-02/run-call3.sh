#!/bin/bash
# #23: what the look-back's fold costs: the default 16-bit scan (csrc as at a386fe6) against the
# same with the fold skipped (wrong sums, timing only), each against a same-run D2D copy, 2^28 f16.
O=${OUT:-/tmp/out}; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/device.txt
for r in 1 2; do .gpu-perf-h/drv default; .gpu-perf-h/drv_nofold nofold; done > $O/fold.txt 2>&1
cat $O/fold.txt
