#!/usr/bin/env python3
"""BENCHMARKS.md from the files `scripts/bench.sh device` wrote ($OUT, fetched into DIR).

    python3 scripts/bench_report.py DIR [BENCHMARKS.md] [--notes NOTES.md]

Copies the raw results into benches/results/ (CSV, SVG, logs) and writes the Markdown: the
device, date and commands, every issue target with the measured value against it, then the
full tables. NOTES.md (hand-written analysis of misses, kept in the repository) is appended
verbatim, so regenerating never loses it.
"""

import csv
import os
import shutil
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benches", "results")
FILES = ["device.txt", "bench-cuda.csv", "bench-cuda.svg", "bench-cpu.csv", "ladder.csv",
         "criterion.txt", "ncu.txt", "tests.log"]


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def pow2(n):
    n = int(n)
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 and n >= 1024 else str(n)


def num(x, fmt="{:.1f}"):
    return fmt.format(float(x)) if x not in ("", None) else "-"


def find(rows, collective, elem, n):
    for r in rows:
        if r["collective"] == collective and r["type"] == elem and int(r["n"]) == n:
            return r
    return None


def verdict(ok):
    return "met" if ok else "**missed**"


def targets(gpu, cpu):
    out = ["| target | collective | type | n | measured | required | |", "|---|---|---|---|---|---|---|"]

    def add(what, coll, elem, n, field, need, fmt, cmp=lambda v, need: v >= need):
        cpu_row = coll.startswith("cpu ")
        r = find(cpu if cpu_row else gpu, coll[4:] if cpu_row else coll, elem, n)
        if r is None or r["status"] != "ok" or r[field] == "":
            out.append(f"| {what} | {coll} | {elem} | {pow2(n)} | not measured | {fmt.format(need)} | **missed** |")
            return
        v = float(r[field])
        out.append(f"| {what} | {coll} | {elem} | {pow2(n)} | {fmt.format(v)} | {fmt.format(need)} | {verdict(cmp(v, need))} |")

    for op in ["sum", "min", "max"]:
        for t in ["f32", "i32", "f64"]:
            add("reduce vs CUB", f"reduce {op}", t, 1 << 28, "ratio", 1.0, "{:.2f}x")
            add("reduce vs CUB (one launch)", f"reduce {op}", t, 1 << 20, "ratio", 1.5, "{:.2f}x")
            add("reduce % of read bandwidth", f"reduce {op}", t, 1 << 28, "pct_of_read", 95.0, "{:.1f}%")
    for kind in ["inclusive", "exclusive"]:
        for t in ["f32", "i32", "i64"]:
            add("scan vs CUB", f"scan {kind} sum", t, 1 << 28, "ratio", 1.05, "{:.2f}x")
    for coll in ["segreduce fixed 8", "segreduce fixed 1024", "segreduce offsets"]:
        for n in [1 << 20, 1 << 24, 1 << 28]:
            add("segmented reduce vs CUB", coll, "f32", n, "ratio", 1.0, "{:.2f}x")
    add("count_if % of copy", "count_if x<0", "f32", 1 << 28, "pct_of_copy", 90.0, "{:.1f}%")
    add("count_if vs one counter", "count_if x<0", "f32", 1 << 28, "ratio", 10.0, "{:.1f}x")
    add("stable compaction % of copy", "compact x>0 stable", "f32", 1 << 28, "pct_of_copy", 90.0, "{:.1f}%")
    add("unordered compaction % of copy", "compact x>0 unordered", "f32", 1 << 28, "pct_of_copy", 90.0, "{:.1f}%")
    add("histogram vs plain, low entropy", "histogram 256 skewed", "u32", 1 << 28, "ratio", 2.0, "{:.2f}x")
    add("histogram vs plain, uniform", "histogram 256 uniform", "u32", 1 << 28, "ratio", 0.95, "{:.2f}x")
    # Issue 13: the vendor libraries as baselines in the same run.
    for coll in ["spmv regular 8..64", "spmv power-law"]:
        for n in [1 << 20, 1 << 24, 1 << 28]:
            add("SpMV vs cuSPARSE", coll, "f32", n, "ratio", 1.0, "{:.2f}x")
    for keys in ["uniform", "skewed"]:
        add("histogram 65536 vs CUB HistogramEven", f"histogram 65536 {keys} vs CUB", "u32", 1 << 28, "ratio", 1.0, "{:.2f}x")
    add("histogram 65536 % of copy", "histogram 65536 uniform", "u32", 1 << 28, "pct_of_copy", 30.0, "{:.1f}%")
    add("stable compaction vs CUB select", "compact x>0 stable", "f32", 1 << 28, "ratio", 1.0, "{:.2f}x")
    add("stable compaction % of copy (issue 13)", "compact x>0 stable", "f32", 1 << 28, "pct_of_copy", 80.0, "{:.1f}%")
    for op in ["min", "max"]:
        for t in ["f32", "f64"]:
            add("reduce vs CUB at 2^20 (issue 13)", f"reduce {op}", t, 1 << 20, "ratio", 1.0, "{:.2f}x")
    add("warp reduce redux vs shuffles", "warp reduce sum rounds", "i32", 1 << 24, "ratio", 1.0, "{:.2f}x")
    for op in ["sum", "min", "max"]:
        for t in ["f32", "i32", "f64"]:
            add("CPU reduce % of read bandwidth", f"cpu reduce {op}", t, 1 << 28, "pct_of_read", 80.0, "{:.1f}%")
    return "\n".join(out)


def table(rows, title):
    by = {}
    for r in rows:
        by.setdefault((r["collective"], r["type"]), []).append(r)
    out = [f"### {title}", ""]
    for (coll, elem), rs in by.items():
        out.append(f"**{coll} {elem}**")
        out.append("")
        out.append("| n | median | GB/s | % copy | % read | baseline GB/s | ratio |")
        out.append("|---|---|---|---|---|---|---|")
        for r in sorted(rs, key=lambda r: int(r["n"])):
            if r["status"] != "ok":
                out.append(f"| {pow2(r['n'])} | {r['status']} | | | | | |")
                continue
            med = float(r["median_s"])
            med_s = f"{med * 1e6:.1f} us" if med < 1e-3 else f"{med * 1e3:.3f} ms"
            ratio = f"{float(r['ratio']):.2f}x {r['baseline']}" if r["ratio"] else "-"
            out.append(
                f"| {pow2(r['n'])} | {med_s} | {num(r['gb_per_s'])} | {num(r['pct_of_copy'])}% | "
                f"{num(r['pct_of_read']) + '%' if r['pct_of_read'] else '-'} | {num(r['baseline_gb_per_s'])} | {ratio} |"
            )
        out.append("")
    return "\n".join(out)


def f32(x):
    # The CSV holds the shortest decimal that reads back as the float32 result; show its exact value.
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def ladder(rows):
    if not rows:
        return "(not run)"
    out = ["| step | kernel | GPU time | vs previous step | host time (with readback) | result | error vs float64 | distinct results |",
           "|---|---|---|---|---|---|---|---|"]
    prev = None
    for r in rows:
        dev = float(r["device_median_s"]) * 1e3
        vs = "-" if prev is None or r["step"] == "0" else f"{(prev / dev - 1) * 100:+.0f}%"
        out.append(
            f"| {r['step'] if r['step'] != '0' else '-'} | {r['kernel']} | {dev:.3f} ms | {vs} | "
            f"{float(r['host_median_s']) * 1e3:.3f} ms | {f32(r['result']):.1f} | {float(r['error']):+.1f} | {r['distinct_results']} |"
        )
        if r["step"] != "0":
            prev = dev
    return "\n".join(out)


def main():
    args = sys.argv[1:]
    notes = None
    if "--notes" in args:
        i = args.index("--notes")
        notes = args[i + 1]
        del args[i:i + 2]
    src = args[0]
    dst = args[1] if len(args) > 1 else os.path.join(ROOT, "BENCHMARKS.md")
    os.makedirs(RESULTS, exist_ok=True)
    for f in FILES:
        p = os.path.join(src, f)
        if os.path.exists(p):
            shutil.copy2(p, os.path.join(RESULTS, f))
    device = open(os.path.join(RESULTS, "device.txt")).read().strip() if os.path.exists(os.path.join(RESULTS, "device.txt")) else "(unknown)"
    gpu = read_csv(os.path.join(RESULTS, "bench-cuda.csv"))
    cpu = read_csv(os.path.join(RESULTS, "bench-cpu.csv"))
    lad = read_csv(os.path.join(RESULTS, "ladder.csv"))
    parts = [
        "# wavekit benchmarks",
        "",
        "Generated by `scripts/bench_report.py` from one staged build of `scripts/bench.sh` run on the lent GPU "
        "(its device steps split over calls of at most 10 minutes each: tests, then bench and ladder, then CPU, "
        "criterion and ncu; `device.txt` below is the bench call's); "
        "regenerate with `scripts/bench.sh stage`, then on the device `STEPS=... bash .gpu-perf/bench.sh device`, "
        "then `scripts/bench.sh render <fetched results> --notes benches/NOTES.md`. Raw results: `benches/results/`.",
        "",
        "## Device and run",
        "",
        "```",
        device,
        "```",
        "",
        "Commands (on the device): `wavekit bench --backend cuda --sizes 2^16,...,2^28 --reps 25 --csv --plot`, "
        "`wavekit bench --ladder --reps 25`, `wavekit bench --backend cpu --warp 32 --only reduce --sizes 2^24,2^26,2^28 --reps 10`, "
        "the criterion binary (`cargo bench --bench collectives --features cuda`) and `ncu` on the reduce and scan kernels.",
        "",
        "Method: every input is random (never zeros) and every result is compared bit for bit with the "
        "conformance reference before it is timed (and outputs again after). GPU times are medians of "
        "CUDA events around the launches on the backend's stream, each sample after an L2 flush and a "
        "delay kernel (so host launch latency is not counted, and no sample is served from a warm L2). "
        "CUB is compiled from the CUB headers of the CUDA 13.0 wheel into the same binary and timed the "
        "same way on the same buffers. GB/s counts the bytes a collective must move (input once, output "
        "once); '% copy' is against a same-run device-to-device copy of the input (read + write), "
        "'% read' against a same-run kernel that only reads the input once with 16-byte loads; ratio = "
        "baseline time / wavekit time.",
        "",
        "## Targets",
        "",
        targets(gpu, cpu),
        "",
        "## Plot",
        "",
        "![GB/s against n](benches/results/bench-cuda.svg)",
        "",
        "## Seed ladder (seed 003, seed 002's kernels)",
        "",
        "The seed's input: 10^8 floats of 1.23 (float64 reference 123000001.9). The seed measured on an "
        "RTX 2070: __syncwarp +10%, shuffles +20%, grid-stride two passes +40%, static scratch 2.0 ms -> 1.5 ms; "
        "atomics gave 123633392, two passes 123000064.",
        "",
        ladder(lad),
        "",
        "## All GPU rows",
        "",
        table(gpu, "CUDA backend"),
        "## CPU backend",
        "",
        table(cpu, "CPU backend (all cores of the device machine)") if cpu else "(not run)",
    ]
    if notes and os.path.exists(notes):
        parts += ["## Analysis", "", open(notes).read().strip(), ""]
    with open(dst, "w") as f:
        f.write("\n".join(parts) + "\n")
    print(f"wrote {dst}")


if __name__ == "__main__":
    main()
