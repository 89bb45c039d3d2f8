#!/usr/bin/env python3
"""Peer libraries on the same GPU, for BENCHMARKS.md: torch and cupy doing what wavekit's bench
rows do (sum, cumsum, masked select, bincount, CSR SpMV, sort, argsort, top-k, unique_consecutive, segment_reduce, argmin/argmax), timed the way wavekit's CUDA bench
times its launches.

    python3 scripts/bench_peers.py [--sizes 2^20,2^24,2^28] [--reps 25] [--csv OUT.csv]

Each sample: the L2 is flushed (a memset of four times its size), a delay kernel holds the
stream so the call is queued before the GPU reaches it, then CUDA events around the call. Calls
whose output size depends on the data (masked select, cupy's boolean indexing, bincount's
maximum) synchronise with the host inside the call; that is the library's API, and it is timed
as it is. The SpMV matrices and histogram keys are generated with the same splitmix streams and
formulas as crates/bench/src/cases.rs (not yet compared row for row with the Rust generator);
float vectors are uniform in [-1000, 1000) like wavekit's (not the same bits). Every result is
checked before it is timed: sums against a float64 sum, cumsum's last element likewise (the
16-bit cumsum every element, to a scan's tolerance: see "half cumsum" below), masked
select's count and values against the mask, bincount against the other library's counts, SpMV
against a float64 product, argsort against the definition of a stable argsort.
"""

import argparse
import csv
import math
import statistics
import sys

import cupy as cp
import cupyx.scipy.sparse as cps
import torch

def splitmix(seed):
    """crates/core/src/element.rs's splitmix on a cupy uint64 array (wrapping arithmetic)."""
    u = cp.uint64
    z = seed + u(0x9E3779B97F4A7C15)
    z = (z ^ (z >> u(30))) * u(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> u(27))) * u(0x94D049BB133111EB)
    return z ^ (z >> u(31))


def stream_seeds(stream, n, start=0):
    return cp.arange(start, start + n, dtype=cp.uint64) | cp.uint64(stream << 40)


def row_lengths(nnz, kind):
    """cases.rs's row_lengths: rows drawn until `nnz` nonzeros, the last row cut to fit."""
    mean = 36 if kind == "regular" else 8
    m = nnz // mean + 1024
    while True:
        r = splitmix(stream_seeds(6, m))
        if kind == "regular":
            lens = (r % cp.uint64(57)).astype(cp.int64) + 8
        else:
            u = ((r >> cp.uint64(11)).astype(cp.float64) + 1.0) / float(1 << 53)
            lens = cp.clip(cp.floor(4.0 / u ** (1.0 / 1.2)), 1, 4096).astype(cp.int64)
        ends = cp.cumsum(lens)
        if int(ends[-1]) >= nnz:
            rows = int(cp.searchsorted(ends, nnz)) + 1
            lens = lens[:rows].copy()
            lens[-1] -= int(ends[rows - 1]) - nnz
            return lens
        m *= 2


def csr(nnz, kind):
    lens = row_lengths(nnz, kind)
    rows = lens.size
    offsets = cp.zeros(rows + 1, dtype=cp.int32)
    offsets[1:] = cp.cumsum(lens).astype(cp.int32)
    cols = (splitmix(stream_seeds(7, nnz)) % cp.uint64(rows)).astype(cp.int32)
    vals = uniform(nnz, 8)
    x = uniform(rows, 9)
    return rows, offsets, cols, vals, x


def uniform(n, stream):
    """Element::from_seed for f32: uniform in [-1000, 1000) from splitmix."""
    unit = (splitmix(stream_seeds(stream, n)) >> cp.uint64(11)).astype(cp.float64) / float(1 << 53)
    return (unit * 2000.0 - 1000.0).astype(cp.float32)


def keys_for(n, skewed, bins):
    """cases.rs's keys_for: uniform over bins + bins/8, or 7 in 8 keys in bin 17."""
    r = splitmix(stream_seeds(14, n))
    span = bins + bins // 8
    k = ((r >> cp.uint64(3)) % cp.uint64(span)).astype(cp.int32)
    if skewed:
        k = cp.where(r % cp.uint64(8) != 0, cp.int32(17), k)
    return k


class Timer:
    def __init__(self, reps, warmup=3):
        self.reps, self.warmup = reps, warmup
        l2 = torch.cuda.get_device_properties(0).L2_cache_size or (64 << 20)
        self.flush = torch.empty(4 * l2, dtype=torch.uint8, device="cuda")
        self.delay_cycles = int(40e-6 * 2e9)

    def time(self, fn):
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        samples = []
        for _ in range(self.reps):
            self.flush.zero_()
            torch.cuda._sleep(self.delay_cycles)
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            samples.append(a.elapsed_time(b) * 1e-3)
        return statistics.median(samples)


def is_stable_argsort(keys, idx):
    """Whether `idx` is the stable ascending argsort of `keys`, from the definition and not from
    another sort: a permutation of 0..n along which the keys never fall, equal keys in input
    order."""
    idx = idx.long()
    seen = torch.zeros(keys.numel(), dtype=torch.bool, device=keys.device)
    seen[idx] = True
    if idx.numel() != keys.numel() or not bool(seen.all()):
        return False
    kv = keys[idx]
    return bool(((kv[1:] > kv[:-1]) | ((kv[1:] == kv[:-1]) & (idx[1:] > idx[:-1]))).all())


def close(what, want, got, rel):
    want = want.double()
    err = float(torch.linalg.vector_norm(got.double() - want) / max(float(torch.linalg.vector_norm(want)), 1e-30))
    if not err <= rel:
        raise SystemExit(f"{what}: relative error {err:.3g} > {rel}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2^20,2^24,2^28")
    ap.add_argument("--reps", type=int, default=25)
    ap.add_argument("--csv", default=None)
    ap.add_argument("--only", default=None,
                    help="substrings of the collective names to run, separated by ';'")
    a = ap.parse_args()
    sizes = [1 << int(s[2:]) if s.startswith("2^") else int(s) for s in a.sizes.split(",")]
    # torch and cupy on the same (legacy default) stream, so the flush and delay order them.
    assert cp.cuda.get_current_stream().ptr == 0
    t = Timer(a.reps)
    rows = []

    def add(peer, collective, elem, n, seconds, nbytes):
        gbs = nbytes / seconds / 1e9
        rows.append(dict(peer=peer, collective=collective, type=elem, n=n, median_s=f"{seconds:.9g}",
                         gb_per_s=f"{gbs:.2f}"))
        print(f"{peer:6} {collective:28} {elem:4} n={n:>10}  {seconds * 1e6:10.1f} us  {gbs:8.1f} GB/s", flush=True)

    def want(name):
        return a.only is None or any(o in name for o in a.only.split(";") if o)

    for n in sizes:
        if want("sum") or want("cumsum") or want("masked select") or want("half sum") or want("half cumsum") or want("half max"):
            x = uniform(n, 1)
            xt = torch.as_tensor(x, device="cuda")
            ref = float(xt.double().sum())
            tol = 1e-4 * float(xt.double().abs().sum())
        if want("sum"):
            for peer, f in [("torch", lambda: xt.sum()), ("cupy", lambda: x.sum())]:
                got = float(f())
                if abs(got - ref) > tol:
                    raise SystemExit(f"{peer} sum: {got} against {ref}")
                add(peer, "sum", "f32", n, t.time(f), 4 * n)
        if want("cumsum"):
            for elem, dt in [("f32", torch.float32), ("i32", torch.int32), ("i64", torch.int64)]:
                if elem == "f32":
                    v = xt
                else:
                    small = (splitmix(stream_seeds(2, n)) % cp.uint64(2001)).astype(cp.int64) - 1000
                    v = torch.as_tensor(small, device="cuda").to(dt)
                vc = cp.asarray(v)
                exact = v.to(torch.int64).cumsum(0) if elem != "f32" else None
                for peer, f in [("torch", lambda: torch.cumsum(v, 0, dtype=dt)),
                                ("cupy", lambda: cp.cumsum(vc, dtype=vc.dtype))]:
                    got = torch.as_tensor(f(), device="cuda")
                    if exact is not None:
                        if not torch.equal(got.to(torch.int64), exact):
                            raise SystemExit(f"{peer} cumsum {elem}: wrong")
                    elif abs(float(got[-1]) - ref) > tol:
                        raise SystemExit(f"{peer} cumsum f32: last {float(got[-1])} against {ref}")
                    add(peer, "cumsum", elem, n, t.time(f), 2 * n * v.element_size())
        if want("half sum") or want("half cumsum") or want("half max"):
            # The 16-bit floats: values in [-1/8, 1/8), so no prefix leaves f16's range at 2^28,
            # summed by torch and returned in the type. Checked against a float64 sum of the
            # same values: a peer that sums in 16 bits misses by far more than the tolerance and
            # gets no row (printed, not fatal, so the other rows still come).
            base = torch.as_tensor(x, device="cuda") / 8000.0
            for elem, dt in [("f16", torch.float16), ("bf16", torch.bfloat16)]:
                h = base.to(dt)
                href = float(h.double().sum())
                ulp = 2.0 ** -10 if elem == "f16" else 2.0 ** -7
                htol = 2 * ulp * max(1.0, abs(href))
                hmax = float(h.double().max())
                # (name, the checked value, the timed call, its bytes, expected, tolerance): the
                # max is one of the values, so exact.
                for name, f, call, nbytes, want_v, tol_v in [
                        ("half sum", lambda: h.sum(), lambda: h.sum(), 2 * n, href, htol),
                        ("half max", lambda: h.max(), lambda: h.max(), 2 * n, hmax, 0.0)]:
                    if not want(name):
                        continue
                    got = float(f())
                    if abs(got - want_v) > tol_v:
                        print(f"torch {name} {elem} n={n}: {got} against {want_v}: no row", flush=True)
                        continue
                    add("torch", name, elem, n, t.time(call), nbytes)
                if want("half cumsum"):
                    # torch's 16-bit cumsum drifts from the exact prefix sums far more than
                    # rounding each output once would (its last element up to ~10% on 2^28
                    # values), so its row is checked as a scan, not to 16-bit accuracy: every
                    # element within 1e-3 of the absolute values summed so far (plus 2 ulp) of
                    # the float64 prefix sum. That still fails anything that is not a prefix
                    # sum (the first thousands of elements are held to ~1e-3 of a few dozen),
                    # and the drift at the end is printed beside the row.
                    got = torch.cumsum(h, 0).double()
                    hd = h.double()
                    ref = hd.cumsum(0)
                    tol = 1e-3 * hd.abs().cumsum(0) + 2 * ulp * ref.abs().clamp(min=1.0)
                    bad = int(((got - ref).abs() > tol).sum())
                    last, want_last = float(got[-1]), float(ref[-1])
                    del got, hd, ref, tol
                    if bad:
                        print(f"torch half cumsum {elem} n={n}: {bad} elements off: no row", flush=True)
                    else:
                        print(f"torch half cumsum {elem} n={n}: last {last} against {want_last} "
                              f"({abs(last - want_last) / max(abs(want_last), 1.0):.2%} off)", flush=True)
                        add("torch", "half cumsum", elem, n, t.time(lambda: torch.cumsum(h, 0)), 4 * n)
                del h
            del base
        if want("masked select"):
            keep = int((xt > 0).sum())
            for peer, f in [("torch", lambda: torch.masked_select(xt, xt > 0)), ("cupy", lambda: x[x > 0])]:
                got = torch.as_tensor(f(), device="cuda")
                if got.numel() != keep or not bool((got > 0).all()) or not torch.equal(got, xt[xt > 0]):
                    raise SystemExit(f"{peer} masked select: wrong")
                add(peer, "masked select x>0", "f32", n, t.time(f), 4 * n + 4 * keep)
        for bins in [256, 65536]:
            for skewed in [False, True]:
                name = f"bincount {bins} {'skewed' if skewed else 'uniform'}"
                if not want(name):
                    continue
                k = keys_for(n, skewed, bins)
                kt = torch.as_tensor(k, device="cuda")
                ref = cp.bincount(k, minlength=bins)
                # torch.bincount takes int32 keys on CUDA; both count the keys past `bins` too.
                for peer, f in [("torch", lambda: torch.bincount(kt, minlength=bins)),
                                ("cupy", lambda: cp.bincount(k, minlength=bins))]:
                    got = cp.asarray(f())
                    if int(got.sum()) != n or not bool((got == ref).all()):
                        raise SystemExit(f"{peer} {name}: wrong")
                    add(peer, name, "u32", n, t.time(f), 4 * n)
                del k, kt, ref
        for kind in ["regular", "power-law"]:
            name = "spmv regular 8..64" if kind == "regular" else "spmv power-law"
            if not want(name) and not want("spmv"):
                continue
            nrows, offsets, cols, vals, x = csr(n, kind)
            a_cp = cps.csr_matrix((vals, cols, offsets), shape=(nrows, nrows))
            a_t = torch.sparse_csr_tensor(torch.as_tensor(offsets, device="cuda"), torch.as_tensor(cols, device="cuda"),
                                          torch.as_tensor(vals, device="cuda"), size=(nrows, nrows))
            xt = torch.as_tensor(x, device="cuda")
            want_y = torch.sparse_csr_tensor(a_t.crow_indices().long(), a_t.col_indices().long(),
                                             a_t.values().double(), size=(nrows, nrows)) @ xt.double()
            nbytes = 4 * (n + 2 * nrows) + 4 * (n + nrows + 1)
            for peer, f in [("torch", lambda: a_t @ xt), ("cupy", lambda: a_cp @ x)]:
                close(f"{peer} {name}", want_y, torch.as_tensor(f(), device="cuda"), 1e-4)
                add(peer, name, "f32", n, t.time(f), nbytes)
            del a_cp, a_t, want_y, offsets, cols, vals, x, xt
        for elem in ["u32", "f32", "u64"]:
            name = "sort keys"
            if not want(name):
                continue
            if elem == "f32":
                k = uniform(n, 20)
            else:
                k = splitmix(stream_seeds(20, n))
                k = (k >> cp.uint64(32)).astype(cp.uint32) if elem == "u32" else k
            # torch sorts the same bits as signed integers (i32 for u32 keys, i64 for u64): the
            # same work in another order, checked against cupy's sort of that view.
            view = {"u32": cp.int32, "u64": cp.int64, "f32": cp.float32}[elem]
            kt = torch.as_tensor(k.view(view), device="cuda")
            ref, ref_view = cp.sort(k), cp.sort(k.view(view))
            for peer, f, r in [("cupy", lambda: cp.sort(k), ref),
                               ("torch", lambda: torch.sort(kt, stable=True)[0], ref_view)]:
                got = cp.asarray(f())
                if not bool((got == r).all()):
                    raise SystemExit(f"{peer} sort {elem}: wrong")
                add(peer, name, elem, n, t.time(f), 2 * n * k.dtype.itemsize)
            del k, kt, ref, ref_view
        for elem in ["u32", "f32"]:
            name = "argsort"
            if not want(name):
                continue
            # The bench's keys (tools/bench/src/sort.rs, stream 28): u32 the low half of splitmix
            # as Element::from_seed takes it, f32 uniform (not the same bits). torch argsorts
            # the u32 bits as i32, as in "sort keys": the same work in another order, checked
            # against that order.
            if elem == "f32":
                k = uniform(n, 28)
            else:
                k = (splitmix(stream_seeds(28, n)) & cp.uint64(0xFFFFFFFF)).astype(cp.uint32).view(cp.int32)
            kt = torch.as_tensor(k, device="cuda")
            f = lambda: torch.argsort(kt, stable=True)
            if not is_stable_argsort(kt, f()):
                raise SystemExit(f"torch argsort {elem}: wrong")
            # Bytes as wavekit's row counts them: the keys read, u32 positions written.
            add("torch", name, elem, n, t.time(f), 8 * n)
            del k, kt
        for elem, dt in [("f16", torch.float16), ("bf16", torch.bfloat16)]:
            name = "sort keys"
            if not want(name):
                continue
            # Values in [-8, 8) as wavekit's 16-bit rows; torch only (cupy has no bf16). Checked
            # as numbers against torch's sort of the f32 widening.
            kt = (torch.as_tensor(uniform(n, 20), device="cuda") / 125).to(dt)
            ref = torch.sort(kt.float(), stable=True)[0]
            f = lambda: torch.sort(kt, stable=True)[0]
            if not bool((f().float() == ref).all()):
                raise SystemExit(f"torch sort {elem}: wrong")
            add("torch", name, elem, n, t.time(f), 4 * n)
            del kt, ref
        if want("top_k"):
            x = torch.as_tensor(uniform(n, 26), device="cuda")
            order = torch.sort(x, descending=True, stable=True)
            for k in [1, 32, 1024, n // 2]:
                k = max(1, min(k, n))
                f = lambda: torch.topk(x, k, largest=True, sorted=True)
                got = f()
                if not torch.equal(got.values, order.values[:k]):
                    raise SystemExit(f"torch topk {k}: wrong")
                label = "n/2" if k == n // 2 else str(k)
                add("torch", f"top_k {label}", "f32", n, t.time(f), 4 * n)
            del x, order
        if want("run_length_encode") or want("unique"):
            # u32 keys in runs of 8 (tools/bench/src/runs.rs's shape; not the same bits), as
            # int64: torch.unique_consecutive takes no uint32 on CUDA.
            r = cp.arange(n, dtype=cp.int64) // 8
            base = (splitmix(stream_seeds(30, n // 8 + 1)) >> cp.uint64(33)).astype(cp.int64)
            kt = torch.as_tensor(base[r] * 2 + (r & 1), device="cuda")
            runs = (n + 7) // 8
            for name, counts in [("run_length_encode runs of 8", True), ("unique runs of 8", False)]:
                if not want(name):
                    continue
                f = lambda: torch.unique_consecutive(kt, return_counts=counts)
                got = f()
                vals = got[0] if counts else got
                if vals.numel() != runs or (counts and not bool((got[1][:-1] == 8).all())):
                    raise SystemExit(f"torch unique_consecutive ({name}): wrong")
                add("torch", name, "u32", n, t.time(f), 8 * n + 8 * runs * (2 if counts else 1))
            del r, base, kt
        if want("reduce_by_key runs of 8"):
            # f32 whole numbers below 2^10 in runs of 8 (tools/bench/src/by_key.rs's shape; not
            # the same bits): torch.segment_reduce(sum) with lengths of 8, exact in any order.
            v = torch.as_tensor((splitmix(stream_seeds(32, n)) % cp.uint64(1024)).astype(cp.float32), device="cuda")
            lengths = torch.full(((n + 7) // 8,), 8, dtype=torch.int64, device="cuda")
            lengths[-1] = n - 8 * (lengths.numel() - 1)
            f = lambda: torch.segment_reduce(v, "sum", lengths=lengths)
            got = f()
            want_sum = torch.zeros(lengths.numel(), dtype=torch.float64, device="cuda")
            want_sum.index_add_(0, torch.arange(n, device="cuda") // 8, v.double())
            if not torch.equal(got.double(), want_sum):
                raise SystemExit("torch segment_reduce: wrong")
            add("torch", "reduce_by_key runs of 8", "f32", n, t.time(f), 8 * n + 8 * lengths.numel())
            del v, lengths, want_sum
        conv = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}
        for name, elem, fn in [("argmin", "f32", torch.argmin), ("argmax", "f64", torch.argmax),
                               ("argmax", "f16", torch.argmax), ("argmax", "bf16", torch.argmax)]:
            if not want(name):
                continue
            # The 16-bit rows: uniform values rounded, so the max ties often (the first wins,
            # checked below as for the others).
            x = torch.as_tensor(uniform(n, 27), device="cuda").to(conv[elem])
            f = lambda: fn(x)
            i = int(f())
            ext = float(x.min() if name == "argmin" else x.max())
            if float(x[i]) != ext or int((x == ext).nonzero()[0]) != i:
                raise SystemExit(f"torch {name}: wrong")
            add("torch", name, elem, n, t.time(f), n * x.element_size())
            del x
        torch.cuda.empty_cache()
        cp.get_default_memory_pool().free_all_blocks()

    # Every peer can fail its check: then there may be no row to write.
    if a.csv and rows:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    print(f"torch {torch.__version__}, cupy {cp.__version__}, {torch.cuda.get_device_name(0)}", file=sys.stderr)


if __name__ == "__main__":
    main()
