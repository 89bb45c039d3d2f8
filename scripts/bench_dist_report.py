#!/usr/bin/env python3
"""BENCHMARKS.md's "Across GPUs" section from the logs of `bench-dist.sh device`.

    python3 scripts/bench_dist_report.py DIR [--out BENCHMARKS.md]

DIR holds meta.txt, one-process-G.log and per-process-G.log (examples/nccl_bench's key=value
lines, rank 0's). The section is written between the markers below, replacing what was there,
or appended if the file has none.
"""

import argparse
import pathlib
import re
import sys

BEGIN = "<!-- dist:begin (scripts/bench-dist.sh render) -->"
END = "<!-- dist:end -->"


def kv(line):
    return dict(re.findall(r"(\w+)=(\[[^\]]*\]|\S+)", line))


def parse(path):
    """The rank-0 results of one nccl_bench run."""
    r = {"bw": []}
    in_bw = False
    for line in path.read_text(errors="replace").splitlines():
        d = kv(line)
        if "scale_log2" in d:
            r["scale"] = d
        elif "repro_sum_bits" in d or "single_sum_bits" in d or ("world" in d and "n" in d):
            r.update(d)
        if line.startswith("bytes nccl_busbw_GBs"):
            in_bw = True
            continue
        if in_bw:
            parts = line.split()
            if len(parts) == 4 and parts[0].isdigit():
                r["bw"].append([float(p) for p in parts])
            else:
                in_bw = False
    return r


def bits(v):
    return v.strip("[]").replace("'", "").replace('"', "") if v else "?"


def size(b):
    b = int(b)
    return f"{b >> 30} GiB" if b >= 1 << 30 else f"{b >> 20} MiB"


def render(d):
    meta = (d / "meta.txt").read_text() if (d / "meta.txt").exists() else ""
    m = dict(re.findall(r"^(date|commit|gpus_present)=(.*)$", meta, re.M))
    gpu = re.findall(r"^gpu=(.*)$", meta, re.M)
    runs = {}
    for f in sorted(d.glob("*-process-*.log")):
        mode, g = re.match(r"(one|per)-process-(\d+)\.log", f.name).groups()
        runs[(int(g), mode)] = parse(f)
    if not runs:
        sys.exit(f"no *-process-*.log in {d}")
    out = [BEGIN, "## Across GPUs: wavekit-dist over NCCL", ""]
    out.append(
        f"Device: {gpu[0] if gpu else '?'} × {m.get('gpus_present', '?')}, lent machine, "
        f"{m.get('date', '?')}; commit {m.get('commit', '?')}. `NCCL_NVLS_ENABLE=0`. "
        "Regenerate: `scripts/bench-dist.sh stage`, on the device `bash .gpu-dist/bench-dist.sh "
        "device`, then `scripts/bench-dist.sh render <fetched>/dist`. Raw logs: "
        "`benches/results/dist/`."
    )
    out += ["", "**Reproducibility**: reproducible float sum (`ReduceOp::Sum`) of "
            f"2^{next(iter(runs.values())).get('n', '2^?').split('^')[-1]} random f32, "
            "shards even, 100 calls each; 'single device' is rank 0's `reduce` of the whole "
            "array on its own GPU.", ""]
    out.append("| GPUs | launch mode | distinct results | bits | = single device | median time | NCCL's own sum (Mode::Fast) |")
    out.append("|---|---|---|---|---|---|---|")
    for (g, mode), r in sorted(runs.items()):
        same = r.get("equal", "?")
        out.append(
            f"| {g} | {'one process' if mode == 'one' else 'process per GPU'} | "
            f"{r.get('distinct', '?')} | {bits(r.get('repro_sum_bits'))} | "
            f"{'yes' if same == 'true' else same} | {r.get('median_ms', '?')} ms | "
            f"{r.get('fast_sum_bits', '?')} |"
        )
    mode_name = {"one": "one process", "per": "process per GPU"}
    scale = [(g, mode, r["scale"]) for (g, mode), r in sorted(runs.items()) if "scale" in r]
    if scale:
        def one_gpu(key):
            # Each launch mode's 1-GPU time of `key`, where the logs have it.
            return {mode: float(s[key]) for g, mode, s in scale if g == 1 and key in s}

        base = one_gpu("median_ms")
        out += ["", f"**Scaling**: reproducible sum of a sharded 2^{scale[0][2]['scale_log2']}-element "
                "f32 array, shards even, median of 10 calls after 2 warm-ups, host time to the "
                "value on every rank; efficiency = time on 1 GPU / (GPUs × time), in the same "
                "launch mode.", ""]
        pbase = one_gpu("planned_ms")
        out[-2] += (" Planned: the same sum through one `plan_reduce`, each call `reduce_into` a "
                    "device value and a wait for the stream (no handshake or host round trip "
                    "inside), timed the same way; its efficiency against the planned 1-GPU time.")
        sbase = one_gpu("scan_ms")
        if sbase:
            out[-2] += (" Scan: the inclusive sum scan of the same array through one `plan_scan`, each "
                        "call `scan_into` and a wait, started after a barrier, the slowest rank's "
                        "median (tile aggregates on every rank but the last, one allgather, the "
                        "left fold of the earlier tiles' aggregates on one GPU thread, the scan "
                        "from that prefix; one GPU: the device scan alone); its hash covers the "
                        "last 4096 outputs of each quarter of the array.")
        mbase = one_gpu("scan_max_ms")
        if mbase:
            out[-2] += (" Max scan: the inclusive max scan of the same array, timed the same way (Max "
                        "does not depend on the order of its combines, so the earlier tiles' "
                        "aggregates are folded by the whole block).")
        out.append("| GPUs | launch mode | median time | GB/s read (all GPUs) | speedup | efficiency | bits | planned | planned efficiency | planned bits | planned scan | scan efficiency | scan hash |" + (" max scan | max scan efficiency |" if mbase else ""))
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if mbase else ""))
        for g, mode, r in sorted(scale, key=lambda x: (x[1], x[0])):
            t = float(r["median_ms"])
            b = base.get(mode)
            sp = f"{b / t:.2f}x" if b else "?"
            eff = f"{100 * b / (g * t):.0f}%" if b else "?"
            pt = float(r["planned_ms"]) if "planned_ms" in r else None
            pb = pbase.get(mode)
            pcol = f"{pt:.3f} ms" if pt else "—"
            peff = f"{100 * pb / (g * pt):.0f}%" if pt and pb else "—"
            st = float(r["scan_ms"]) if "scan_ms" in r else None
            sb = sbase.get(mode)
            scol = f"{st:.3f} ms" if st else "—"
            seff = f"{100 * sb / (g * st):.0f}%" if st and sb else "—"
            row = f"| {g} | {mode_name[mode]} | {t:.3f} ms | {r.get('read_GBs', '?')} | {sp} | {eff} | {bits(r.get('bits'))} | {pcol} | {peff} | {bits(r.get('planned_bits')) if pt else '—'} | {scol} | {seff} | {r.get('scan_hash', '—')} |"
            if mbase:
                mt = float(r["scan_max_ms"]) if "scan_max_ms" in r else None
                mb = mbase.get(mode)
                row += f" {f'{mt:.3f} ms' if mt else '—'} | {f'{100 * mb / (g * mt):.0f}%' if mt and mb else '—'} |"
            out.append(row)
    for (g, mode), r in sorted(runs.items()):
        if not r["bw"]:
            continue
        out += ["", f"**Bandwidth, {g} GPUs, {mode_name[mode]}**: elementwise allreduce of f32, bus "
                "bandwidth = bytes × 2(R−1)/R / time (nccl-tests' rule), median of 20 calls (5 at "
                "≥ 256 MiB) after 2 warm-ups, each timed on the host to stream completion; NCCL's "
                "`ncclAllReduce` and wavekit's reproducible `all_reduce` on the same buffers in the "
                "same run.", ""]
        out.append("| bytes | NCCL allreduce (GB/s) | wavekit reproducible (GB/s) | ratio |")
        out.append("|---|---|---|---|")
        for b, n, w, ratio in r["bw"]:
            out.append(f"| {size(b)} | {n:.1f} | {w:.1f} | {ratio:.2f} |")
    out.append(END)
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=pathlib.Path)
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("BENCHMARKS.md"))
    a = ap.parse_args()
    section = render(a.dir)
    text = a.out.read_text() if a.out.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section.rstrip("\n") + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    a.out.write_text(text)
    print(f"wrote the Across GPUs section of {a.out}")


if __name__ == "__main__":
    main()
