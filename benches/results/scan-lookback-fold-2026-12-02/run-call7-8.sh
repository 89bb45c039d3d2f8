#!/bin/bash
# #23: a chain warp (the first block's, after its tiles) publishing every tile's inclusive prefix
# in order, against the default; 2^28 f16, same-run D2D copy, output hashes compared.
O=${OUT:-/tmp/out}; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/device.txt
for r in 1; do for b in drv drv_chain8 drv_chain16; do timeout 60 .gpu-perf-h/$b $b; done; done > $O/chain.txt 2>&1
cat $O/chain.txt
