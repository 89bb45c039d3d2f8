#!/usr/bin/env python3
"""Compares the SASS of two builds of one kernel file, kernel by kernel (issue #23, 2026-12-04).

Usage: sass_compare.py OLD.sass NEW.sass   (each `cuobjdump -sass` of a cubin built by
`nvcc -std=c++17 -O3 --fmad=false --ftz=false --prec-div=true --prec-sqrt=true -I csrc
-gencode=arch=compute_90,code=sm_90 -cubin`, the flags of crates/build/src/cuda.rs).
Kernel names are matched with the anonymous namespace's hash dropped, and with ec76b14's extra
template argument of the default (`Lj0E`, the removed dynamic-shared-memory switch) dropped.
Differing instructions are listed with register numbers and address offsets blanked, so that a
swap of the operands of a symmetric compare, or of two loads, shows as the same line twice."""
import re
import sys
from collections import Counter


def norm_name(k):
    k = re.sub(r"_GLOBAL__N__[0-9a-f]+_", "_GLOBAL__N__X_", k)
    return k.replace("ELj0EEEv", "EEEv")


def kernels(path):
    out, cur = {}, None
    for line in open(path):
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = norm_name(m.group(1))
            out[cur] = []
            continue
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?);", line)
        if cur and m:
            out[cur].append(re.sub(r"\s+", " ", m.group(1)).strip())
    return out


def blank(ins):
    return re.sub(r"\+-?0x[0-9a-f]+", "", re.sub(r"\b([RP])[0-9]+\b", r"\1", ins))


old, new = kernels(sys.argv[1]), kernels(sys.argv[2])
common = sorted(set(old) & set(new))
print(f"kernels: {len(old)} old, {len(new)} new, {len(common)} in both")
print(f"only in old: {len(set(old) - set(new))}, only in new: {len(set(new) - set(old))}")
same_len = sum(len(old[k]) == len(new[k]) for k in common)
print(f"same instruction count: {same_len} of {len(common)}")
identical = sum(old[k] == new[k] for k in common)
print(f"identical: {identical} of {len(common)}")
changed = Counter()
for k in common:
    a, b = old[k], new[k]
    if len(a) != len(b):
        print("different length:", k)
        continue
    for x, y in zip(a, b):
        if x != y:
            changed[(blank(x), blank(y))] += 1
print("differing instruction pairs, registers and offsets blanked (count: old | new):")
for (x, y), c in sorted(changed.items(), key=lambda t: -t[1]):
    print(f"{c:6d}: {x} | {y}")
print("every differing pair equal once blanked:", all(x == y for x, y in changed))
