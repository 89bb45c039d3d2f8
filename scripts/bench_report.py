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
# BENCHMARKS.md's line from which the file is kept as it is when rendered again.
KEPT_MARKER = "<!-- kept:begin"
FILES = ["device.txt", "bench-cuda.csv", "bench-cuda.svg", "bench-cpu.csv", "ladder.csv",
         "criterion.txt", "ncu.txt", "tests.log", "sanitize.txt", "peers.csv", "peers.txt", "bench.txt"]


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


def peers_at(rows, coll, elem, n):
    """The peers file's rows of one collective, type and size, by peer (torch, cupy)."""
    return {r["peer"]: r for r in rows if r["collective"] == coll and r["type"] == elem and int(r["n"]) == n}


def verdict(ok):
    return "met" if ok else "**missed**"


def targets(gpu, cpu, peer_rows=()):
    out = ["| target | collective | type | n | measured | required | |", "|---|---|---|---|---|---|---|"]

    def add(what, coll, elem, n, field, need, fmt, cmp=lambda v, need: v >= need):
        cpu_row = coll.startswith("cpu ")
        r = find(cpu if cpu_row else gpu, coll[4:] if cpu_row else coll, elem, n)
        if r is None or r["status"] != "ok" or r[field] == "":
            out.append(f"| {what} | {coll} | {elem} | {pow2(n)} | not measured | {fmt.format(need)} | **missed** |")
            return
        v = float(r[field])
        out.append(f"| {what} | {coll} | {elem} | {pow2(n)} | {fmt.format(v)} | {fmt.format(need)} | {verdict(cmp(v, need))} |")

    # Issue 13, in its order.
    for kind in ["inclusive", "exclusive"]:
        for t in ["f32", "i32", "i64"]:
            add("scan vs CUB", f"scan {kind} sum", t, 1 << 28, "ratio", 1.05, "{:.2f}x")
            add("scan % of copy", f"scan {kind} sum", t, 1 << 28, "pct_of_copy", 75.0, "{:.1f}%")
            for n in [1 << 20, 1 << 24]:
                add("scan vs CUB", f"scan {kind} sum", t, n, "ratio", 1.0, "{:.2f}x")
    add("stable compaction vs CUB select", "compact x>0 stable", "f32", 1 << 28, "ratio", 1.0, "{:.2f}x")
    add("stable compaction % of copy", "compact x>0 stable", "f32", 1 << 28, "pct_of_copy", 80.0, "{:.1f}%")
    for coll in ["spmv regular 8..64", "spmv power-law"]:
        for n in [1 << 20, 1 << 24, 1 << 28]:
            add("SpMV vs cuSPARSE", coll, "f32", n, "ratio", 1.0, "{:.2f}x")
    for keys in ["uniform", "skewed"]:
        add("histogram 65536 vs CUB HistogramEven", f"histogram 65536 {keys} vs CUB", "u32", 1 << 28, "ratio", 1.0, "{:.2f}x")
    add("histogram 65536 % of copy", "histogram 65536 uniform", "u32", 1 << 28, "pct_of_copy", 30.0, "{:.1f}%")
    for op in ["sum", "min", "max"]:
        for t in ["f32", "i32", "f64"]:
            add("reduce vs CUB at 2^20", f"reduce {op}", t, 1 << 20, "ratio", 1.0, "{:.2f}x")
    for n in [1 << 20, 1 << 24, 1 << 28]:
        add("warp reduce: redux.sync vs shuffles", "warp reduce sum rounds", "i32", n, "ratio", 1.0, "{:.2f}x")
    n_cpu = max((int(r["n"]) for r in cpu), default=1 << 28)
    for op in ["sum", "min", "max"]:
        for t in ["f32", "i32", "f64"]:
            add("CPU reduce % of read", f"cpu reduce {op}", t, n_cpu, "pct_of_read", 80.0, "{:.1f}%")
    for kind in ["inclusive", "exclusive"]:
        for t in ["f32", "i32", "i64"]:
            add("CPU scan % of copy", f"cpu scan {kind} sum", t, n_cpu, "pct_of_copy", 60.0, "{:.1f}%")
    add("CPU stable compaction % of copy", "cpu compact x>0 stable", "f32", n_cpu, "pct_of_copy", 50.0, "{:.1f}%")
    add("CPU histogram 256 % of copy", "cpu histogram 256 uniform", "u32", n_cpu, "pct_of_copy", 50.0, "{:.1f}%")
    # Earlier issues' targets, still tracked.
    for op in ["sum", "min", "max"]:
        for t in ["f32", "i32", "f64"]:
            add("reduce vs CUB", f"reduce {op}", t, 1 << 28, "ratio", 1.0, "{:.2f}x")
    add("count_if % of copy", "count_if x<0", "f32", 1 << 28, "pct_of_copy", 90.0, "{:.1f}%")
    add("unordered compaction % of copy", "compact x>0 unordered", "f32", 1 << 28, "pct_of_copy", 90.0, "{:.1f}%")
    # Issue 25: the unordered kernel against CUB's (stable) DeviceSelect::If, the only select CUB has.
    add("unordered compaction vs CUB select", "compact x>0 unordered", "f32", 1 << 28, "ratio", 1.0, "{:.2f}x")
    add("histogram 256 vs plain, low entropy", "histogram 256 skewed", "u32", 1 << 28, "ratio", 2.0, "{:.2f}x")
    # Issue 23, at 2^28: each grouped collective and argmin / argmax >= 1.0x CUB, >= 3x torch
    # where torch has the call; the 16-bit floats' reduce >= 95% of a read, scan >= 75% of copy.
    for coll, elem in ISSUE23_VS_CUB:
        add("grouped / arg vs CUB", coll, elem, 1 << 28, "ratio", 1.0, "{:.2f}x")
    for peer, elem, coll in ISSUE23_VS_TORCH:
        r = find(gpu, coll, elem, 1 << 28)
        t = peers_at(peer_rows, peer, elem, 1 << 28).get("torch")
        what = f"vs torch ({peer})"
        if r is None or r["status"] != "ok":
            out.append(f"| {what} | {coll} | {elem} | 2^28 | not measured | 3.00x | **missed** |")
            continue
        if not t:
            # bench_peers.py checks torch's result too and writes no row for one past the check.
            out.append(f"| {what} | {coll} | {elem} | 2^28 | no torch row (torch's result failed the check, or it was not run) | 3.00x | n/a |")
            continue
        v = float(t["median_s"]) / float(r["median_s"])
        out.append(f"| {what} | {coll} | {elem} | 2^28 | {v:.2f}x | 3.00x | {verdict(v >= 3.0)} |")
    # The bench's 16-bit reduce rows (it has no bf16 Min row).
    for op, t in [("sum", "f16"), ("sum", "bf16"), ("min", "f16"), ("max", "f16"), ("max", "bf16")]:
        add("16-bit reduce % of read", f"reduce {op}", t, 1 << 28, "pct_of_read", 95.0, "{:.1f}%")
    for t in ["f16", "bf16"]:
        add("16-bit scan % of copy", "scan inclusive sum", t, 1 << 28, "pct_of_copy", 75.0, "{:.1f}%")
    return "\n".join(out)


# Issue 23's rows against CUB (ReduceByKey, InclusiveSumByKey, RunLengthEncode::Encode,
# Select::Unique, DevicePartition::If, ArgMin / ArgMax) and against torch (the peers file).
ISSUE23_VS_CUB = [
    ("reduce_by_key runs of 8", "f32"),
    ("scan_by_key runs of 8", "f32"),
    ("run_length_encode runs of 8", "u32"),
    ("unique runs of 8", "u32"),
    ("partition", "f32"),
    ("partition", "f64"),
    ("partition_reversed", "f32"),
    ("partition_reversed", "f64"),
    ("partition3_reversed", "f32"),
    ("partition3_reversed", "f64"),
    ("argmin", "f32"),
    ("argmax", "f64"),
    ("argmax", "f16"),
    ("argmax", "bf16"),
]
ISSUE23_VS_TORCH = [
    ("reduce_by_key runs of 8", "f32", "reduce_by_key runs of 8"),
    ("run_length_encode runs of 8", "u32", "run_length_encode runs of 8"),
    ("unique runs of 8", "u32", "unique runs of 8"),
    ("argmin", "f32", "argmin"),
    ("argmax", "f64", "argmax"),
    ("argmax", "f16", "argmax"),
    ("argmax", "bf16", "argmax"),
    ("half sum", "f16", "reduce sum"),
    ("half sum", "bf16", "reduce sum"),
    ("half cumsum", "f16", "scan inclusive sum"),
    ("half cumsum", "bf16", "scan inclusive sum"),
]


# The order of the collective families in the row tables (a collective's first word).
FAMILIES = ["scan", "reduce", "warp", "count_if", "compact", "histogram", "segreduce", "spmv",
            "reduce_by_key", "scan_by_key", "run_length_encode", "unique", "partition",
            "partition_reversed", "partition3_reversed", "argmin", "argmax", "top_k", "sort",
            "argsort"]


def family(collective):
    word = collective.split()[0]
    return FAMILIES.index(word) if word in FAMILIES else len(FAMILIES)


def table(rows, title):
    """One line a collective and type: its ratio to the same-process baseline at each size, and
    the largest size's time, bandwidth and fractions of copy and read (the per-size details are
    in the CSV beside it, benches/results/bench-*.csv)."""
    by = {}
    for r in rows:
        by.setdefault((r["collective"], r["type"]), []).append(r)
    sizes = sorted({int(r["n"]) for r in rows})
    top = sizes[-1] if sizes else 0
    with_base = any(r["ratio"] for r in rows)
    head = ["collective", "type"] + (["baseline"] + [f"vs baseline {pow2(n)}" for n in sizes] if with_base else [])
    head += [f"{pow2(top)}: median", "GB/s", "% copy", "% read"]
    out = [f"### {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    # Grouped by family (scans together, then reduces, ...), each family in the run's order.
    order = list(by)
    for (coll, elem) in sorted(order, key=lambda k: (family(k[0]), order.index(k))):
        rs = by[(coll, elem)]
        at = {int(r["n"]): r for r in rs}
        cells = [coll, elem]
        if with_base:
            cells.append(next((r["baseline"] for r in rs if r["baseline"]), "-"))
            for n in sizes:
                r = at.get(n)
                if r is None:
                    cells.append("")
                elif r["status"] != "ok":
                    cells.append(r["status"])
                else:
                    cells.append(f"{float(r['ratio']):.2f}x" if r["ratio"] else "-")
        r = at.get(top)
        if r is None or r["status"] != "ok":
            cells += [r["status"] if r else "", "", "", ""]
        else:
            med = float(r["median_s"])
            cells += [
                f"{med * 1e6:.1f} us" if med < 1e-3 else f"{med * 1e3:.3f} ms",
                num(r["gb_per_s"]),
                f"{num(r['pct_of_copy'])}%" if r["pct_of_copy"] else "-",
                f"{num(r['pct_of_read'])}%" if r["pct_of_read"] else "-",
            ]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    return "\n".join(out)


# Peer rows (bench_peers.py) beside the wavekit row and its same-process baseline.
PEER_ROWS = [
    ("sum", "f32", "reduce sum"),
    ("cumsum", "f32", "scan inclusive sum"),
    ("cumsum", "i32", "scan inclusive sum"),
    ("cumsum", "i64", "scan inclusive sum"),
    ("masked select x>0", "f32", "compact x>0 stable"),
    ("bincount 256 uniform", "u32", "histogram 256 uniform vs CUB"),
    ("bincount 256 skewed", "u32", "histogram 256 skewed vs CUB"),
    ("bincount 65536 uniform", "u32", "histogram 65536 uniform vs CUB"),
    ("bincount 65536 skewed", "u32", "histogram 65536 skewed vs CUB"),
    ("spmv regular 8..64", "f32", "spmv regular 8..64"),
    ("spmv power-law", "f32", "spmv power-law"),
] + ISSUE23_VS_TORCH


def peers(gpu, rows):
    if not rows:
        return "(not run)"

    def t(sec):
        sec = float(sec)
        return f"{sec * 1e6:.1f} us" if sec < 1e-3 else f"{sec * 1e3:.3f} ms"

    out = ["| collective | type | n | wavekit | same-process baseline | torch | cupy |", "|---|---|---|---|---|---|---|"]
    sizes = sorted({int(r["n"]) for r in rows})
    for coll, elem, ours in PEER_ROWS:
        for n in sizes:
            got = peers_at(rows, coll, elem, n)
            if not got:
                continue
            w = find(gpu, ours, elem, n)
            if w and w["status"] == "ok":
                wk = f"{t(w['median_s'])}, {num(w['gb_per_s'])} GB/s"
                base = "-"
                if w["ratio"]:
                    bt = float(w["median_s"]) * float(w["ratio"])
                    base = f"{w['baseline']}: {t(bt)}, {num(w['baseline_gb_per_s'])} GB/s"
            else:
                wk, base = "not measured", "-"
            cells = [f"{t(got[p]['median_s'])}, {num(got[p]['gb_per_s'])} GB/s" if p in got else "-" for p in ["torch", "cupy"]]
            out.append(f"| {coll} | {elem} | {pow2(n)} | {wk} | {base} | {cells[0]} | {cells[1]} |")
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
        kept = os.path.join(RESULTS, f)
        # Rendering again from benches/results itself copies nothing.
        if os.path.exists(p) and not (os.path.exists(kept) and os.path.samefile(p, kept)):
            shutil.copy2(p, kept)
    # What the device files cannot say (which calls, which commits, merged runs), by hand.
    run_path = os.path.join(RESULTS, "run.md")
    run_note = open(run_path).read().strip() + "\n" if os.path.exists(run_path) else ""
    device = open(os.path.join(RESULTS, "device.txt")).read().strip() if os.path.exists(os.path.join(RESULTS, "device.txt")) else "(unknown)"
    gpu = read_csv(os.path.join(RESULTS, "bench-cuda.csv"))
    cpu = read_csv(os.path.join(RESULTS, "bench-cpu.csv"))
    lad = read_csv(os.path.join(RESULTS, "ladder.csv"))
    peer_rows = read_csv(os.path.join(RESULTS, "peers.csv"))
    parts = [
        "# wavekit benchmarks",
        "",
        "The current results: the targets, the tables a user compares, and one analysis per missed "
        "target. How each number came about, what was tried and dropped, and earlier days' numbers "
        "are in the dated history, one file a month: [benches/history/](benches/history/README.md). "
        "Raw results: `benches/results/` keeps the files the tables below cite; older raw runs are "
        "in git history at commit 1b135ea (`git show 1b135ea:benches/results/<name>`).",
        "",
        "Everything down to \"Analysis\" is generated by `scripts/bench_report.py` from one staged build of "
        "`scripts/bench.sh` run on the lent GPU; regenerate with `CRITERION=0 scripts/bench.sh stage "
        "<checkout>/.gpu-perf-h`, then on the device `SIZES=2^20,2^24,2^28 REPS=15 STEPS=\"tests bench peers "
        "cpu sanitize\" bash .gpu-perf-h/bench.sh device`, then `scripts/bench.sh render <fetched results> "
        "--notes benches/NOTES.md` (which copies the run's files into `benches/results/`). \"Analysis\" "
        "is `benches/NOTES.md`; from \"Sorting\" on the file is hand-written or rendered by "
        "`scripts/bench-dist.sh` and kept as it is.",
        "",
        "## Device and run",
        "",
        run_note,
        "```",
        device,
        "```",
        "",
        "Commands (on the device, in the calls listed above): "
        + ("the CUDA test binaries with `--include-ignored`; " if os.path.exists(os.path.join(src, "tests.log")) else "") +
        "`wavekit bench --backend cuda --sizes 2^20,2^24,2^28 --reps 15 --only <group>` for each group the calls "
        "name (one process each: every row's CUB/cuSPARSE baseline and copy/read kernels are timed in that process "
        "right after the row); `python3 bench_peers.py --sizes 2^20,2^24,2^28 --reps 15`; `wavekit bench --backend "
        "cpu --warp 32 --sizes 2^28 --reps 10 --only <group>` for the CPU groups"
        + ("; compute-sanitizer over tests/cuda_sanitize.rs." if os.path.exists(os.path.join(src, "sanitize.txt")) else "."),
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
        targets(gpu, cpu, peer_rows),
        "",
        "## Peers: torch and cupy on the same GPU",
        "",
        "`scripts/bench_peers.py` in the same device call, after the wavekit rows (a separate process; "
        "same flush, delay kernel and CUDA events; results checked first). Calls whose output size "
        "depends on the data (masked select, bincount) synchronise with the host inside the call, as "
        "those libraries' APIs do. wavekit's bincount rows are its histogram (keys past the bins "
        "counted outside); torch.bincount and cupy.bincount count them in extra bins.",
        "",
        peers(gpu, peer_rows),
        "",
    ]
    # The plot and the seed ladder only when the run made them (the last ladder: the history's
    # 2026-12 staged run, "Seed ladder"; its files at commit 1b135ea, benches/results/earlier-1b66620/).
    if os.path.exists(os.path.join(src, "bench-cuda.svg")):
        parts += ["## Plot", "", "![GB/s against n](benches/results/bench-cuda.svg)", ""]
    if lad:
        parts += [
            "## Seed ladder (seed 003, seed 002's kernels)",
            "",
            "The seed's input: 10^8 floats of 1.23 (float64 reference 123000001.9). The seed measured on an "
            "RTX 2070: __syncwarp +10%, shuffles +20%, grid-stride two passes +40%, static scratch 2.0 ms -> 1.5 ms; "
            "atomics gave 123633392, two passes 123000064.",
            "",
            ladder(lad),
            "",
        ]
    parts += [
        "## All GPU rows",
        "",
        "Each row's ratio is the same-process baseline's median time over wavekit's (> 1: wavekit faster); "
        "every size's time, bandwidth and fractions are in `benches/results/bench-cuda.csv` and "
        "`benches/results/bench.txt`.",
        "",
        table(gpu, "CUDA backend"),
        "## CPU backend",
        "",
        table(cpu, "CPU backend (all cores of the device machine)") if cpu else "(not run)",
    ]
    if notes and os.path.exists(notes):
        parts += ["## Analysis", "", open(notes).read().strip(), ""]
    # Everything from the "kept" marker to the end (the sorting section, hand-written from its own
    # runs, the "Across GPUs" section that scripts/bench-dist.sh renders, the link to the dated
    # history in benches/history/) is kept as it is: a staged run replaces the tables above it.
    # Without the marker, only the sort and dist blocks are kept.
    old = open(dst).read() if os.path.exists(dst) else ""
    if KEPT_MARKER in old:
        parts += ["", old[old.index(KEPT_MARKER):].rstrip()]
    else:
        for name in ("sort", "dist"):
            begin, end = f"<!-- {name}:begin", f"<!-- {name}:end -->"
            if begin in old and end in old:
                kept = old[old.index(begin):old.index(end) + len(end)]
                parts += ["", kept]
    with open(dst, "w") as f:
        f.write("\n".join(parts) + "\n")
    print(f"wrote {dst}")


if __name__ == "__main__":
    main()
