#!/bin/bash
O=${OUT:-/tmp/out}; mkdir -p $O
cuobjdump -sass .gpu-perf-h/def.cubin > /tmp/all.sass
awk '/Function : /{p = ($0 ~ /scan_pairs_kernelILi0EfNS_12PackedStatusIfEENS_6wk_f16ELi4ELi4ELb1ELi2E/)} p' /tmp/all.sass > $O/sass.txt
wc -l /tmp/all.sass $O/sass.txt; grep -n "STL\|LDL\|BAR\|EXIT\|BRA\|NANOSLEEP" $O/sass.txt | head -80
