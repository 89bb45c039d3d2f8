#!/bin/bash
# build.sh OUT SRC -Dflags...
export PATH=/work/main/.venv-cuda/lib/python3.11/site-packages/nvidia/cu13/bin:$PATH
out=$1; src=$2; shift 2
nvcc -std=c++17 -O3 --fmad=false --ftz=false --prec-div=true --prec-sqrt=true -I/work/main/csrc/kernels -I/work/main/csrc -gencode=arch=compute_90,code=sm_90 -L/work/main/.venv-cuda/lib/python3.11/site-packages/nvidia/cu13/lib "$@" $src -o $out
