#!/bin/bash
# #23, 2026-12-04: the standalone driver's binaries of this directory's calls. Run beside a copy of
# csrc as at 1ce90a9 with experiments.patch applied (`patch -p1` in the directory holding csrc),
# the driver (driver.cu.txt) as driver.cu. Every variant is a macro; without one the build is the
# default (with the stash 16-byte aligned, as from call 15 on).
NV=${NV:-/work/main/.venv-cuda/lib/python3.11/site-packages/nvidia/cu13}
b() { out=$1; shift; $NV/bin/nvcc -std=c++17 -O3 --fmad=false "$@" -I csrc -L $NV/lib \
  -gencode=arch=compute_90,code=sm_90 -o $out driver.cu csrc/kernels/device_scan.cu; }
b drv                        # the default (built with the 2026-12-02 driver, no counters)
# call 1: persistent blocks, the next batch's loads by cp.async into shared memory
b pf_2_4_80 -DWK_XP_PF -DXP_BLOCKS=2 -DXP_K=4 -DXP_WINDOWS=80
b pf_3_4_64 -DWK_XP_PF -DXP_BLOCKS=3 -DXP_K=4 -DXP_WINDOWS=64
b pf_4_2_64 -DWK_XP_PF -DXP_BLOCKS=4 -DXP_K=2 -DXP_WINDOWS=64
b pf_5_2_48 -DWK_XP_PF -DXP_BLOCKS=5 -DXP_K=2 -DXP_WINDOWS=48
# call 2: a look-back warp of its own, looking back from the block's start
b lb_4_3 -DWK_XP_LB -DXP_BLOCKS=3 -DXP_K=4
b lb_5_3 -DWK_XP_LB -DXP_BLOCKS=3 -DXP_K=5
b lb_7_2 -DWK_XP_LB -DXP_BLOCKS=2 -DXP_K=7
b lb_5_3_p100 -DWK_XP_LB -DXP_BLOCKS=3 -DXP_K=5 -DXP_POLL_NS=100
b lb_5_3_p300 -DWK_XP_LB -DXP_BLOCKS=3 -DXP_K=5 -DXP_POLL_NS=300
b lb_7_2_p100 -DWK_XP_LB -DXP_BLOCKS=2 -DXP_K=7 -DXP_POLL_NS=100
# call 3: one status per 2 or 4 tiles (a proxy for a coarser documented order)
b sup2 -DXP_SUPER=2
b sup4 -DXP_SUPER=4
# calls 4-8: with counters (XP_STATS; calls 4 and 5 before the histograms were added)
b st_drv -DXP_STATS
b st_sup4 -DXP_STATS -DXP_SUPER=4
b st_nofold -DXP_STATS -DXP_NOFOLD
b st_drv_d600 -DXP_STATS -DXP_LBDELAY=600
b st_sup4_d600 -DXP_STATS -DXP_SUPER=4 -DXP_LBDELAY=600
b st_pad3 -DXP_STATS -DXP_PAD=30000
b st_pad2 -DXP_STATS -DXP_PAD=65536
b coal -DXP_COAL
b st_coal -DXP_STATS -DXP_COAL
# call 9: without the counters, the fold skipped, and no look-back at all (x0 = identity)
b nofold -DXP_NOFOLD
b nolb -DXP_NOLB
# call 10: one status per four / two tiles with the block's own status line prefetched (calls 3,
# 5 and 7 prefetched the line of status first * K, not the block's: a flawed proxy)
b sup4p -DXP_SUPER=4
b sup2p -DXP_SUPER=2
# call 11: no look-back, with lane-contiguous loads, with 3 blocks an SM (all three builds spill
# 176 bytes a thread: ptxas -v); call 12: no look-back with the counters (no spill)
b nolb_coal -DXP_NOLB -DXP_COAL
b nolb_pad3 -DXP_NOLB -DXP_PAD=30000
b st_nolb -DXP_STATS -DXP_NOLB
# call 13: sass.sh on the default's cubin (nvcc -cubin of csrc/kernels/device_scan.cu at 1ce90a9)
# call 14: one dependent add a batch of four stash entries (wrong sums; loads and statuses as the
# default's), without and with the counters
b fold4 -DXP_FOLD_ONE_IN_4
b st_fold4 -DXP_STATS -DXP_FOLD_ONE_IN_4
# call 15: the fold with the stash read 16 bytes a load, two loads ahead (XP_PIPE; the stash
# 16-byte aligned in every build from here on, drv2 being the default with that alignment alone)
b pipe -DXP_PIPE
b drv2
# call 16: the float look-back's window index in 32 bits (XP_IDX32; ptxas still 24 bytes spilled)
b idx32 -DXP_IDX32
