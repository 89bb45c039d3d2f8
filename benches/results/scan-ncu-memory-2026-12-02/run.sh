#!/bin/bash
# #23: the memory system's side of the 16-bit scan against the f32 scan (2^28), Nsight Compute.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O
mkdir -p /tmp/exp && tar xJf .gpu-perf-h/exp.tar.xz -C /tmp/exp
W=/tmp/exp/wavekit
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
{ date -u; cat /tmp/exp/commit.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; $NCU --version | tail -1; } > $O/device.txt
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_global_ld.sum
for c in "scan_pairs_kernel|scan inclusive sum f16" "scan_kernel|scan inclusive sum f32"; do
  IFS='|' read -r k only <<<"$c"
  echo "===== $k, --only \"$only\" 2^28"
  timeout 150 $NCU --clock-control none --kernel-name "regex:$k" --launch-skip 2 --launch-count 1 --metrics $M --section WarpStateStats --section SchedulerStats \
    $W bench --backend cuda --sizes 2^28 --reps 3 --only "$only" 2>&1 | grep -v "^==PROF==" 
done > $O/ncu.txt 2>&1
grep -E "=====|duration|bytes_|sectors|requests|inst_executed|pct|Stall|Issued|Eligible|cycles_active" $O/ncu.txt | head -120
