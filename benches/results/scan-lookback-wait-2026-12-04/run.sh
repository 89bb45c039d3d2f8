#!/bin/bash
# #23, 2026-12-04: on the lent GPU, the binaries named in VARS (build.sh) from .gpu-perf-h/, each
# timing 2^28 f16 against a same-process cudaMemcpyAsync, three rounds a process, ROUNDS processes.
# Calls: VARS="drv pf_2_4_80 pf_3_4_64 pf_4_2_64 pf_5_2_48" (1), "drv lb_4_3 lb_5_3 lb_7_2
# lb_5_3_p100 lb_5_3_p300 lb_7_2_p100" (2), "drv sup2 sup4" (3), "drv st_drv st_sup4 st_nofold"
# (4), + "st_drv_d600 st_sup4_d600" (5), "drv st_drv st_pad3 st_pad2" (6), ROUNDS=1 "drv st_drv
# st_sup4 st_nofold" (7), "drv coal st_coal" (8), "drv nofold nolb" (9), "drv sup4p sup2p
# nofold" (10), "drv nolb nolb_coal nolb_pad3" (11, ROUNDS=1), "st_nolb" (12, ROUNDS=1), "drv fold4
# nofold" then ROUNDS=1 "st_drv st_fold4 st_nofold" (14), "drv pipe drv2 nofold" (15); call 13
# is sass.sh; "drv idx32" (16).
O=${OUT:-/tmp/out}; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } > $O/device.txt
for r in ${ROUNDS:-1 2}; do for v in $VARS; do timeout 60 .gpu-perf-h/$v $v; done; done > $O/pf.txt 2>&1
cat $O/device.txt $O/pf.txt
