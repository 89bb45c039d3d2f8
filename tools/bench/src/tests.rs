//! The bench refuses a wrong result: a backend that is the CPU oracle except for a
//! deliberately wrong device reduce (one ulp off) and histogram (one key too many) gets no number
//! for those, and numbers for everything else.

use super::case::ExtraCases;
use super::timing::{BenchBackend, Harness, Timing};
use crate::{Outcome, Row, Selection, bench_one};
use wavekit::cpu::{CpuBackend, CpuBuffer};
use wavekit::element::Element;
use wavekit::error::Result;
use wavekit::raw::{ByKeyOut, RawBackend, RunsOut, SegmentSpec, SortSpec, Validated, WarpLaunch};
use wavekit::width::WarpWidth;
use wavekit::{ArgOp, Predicate, ReduceOp};
use wavekit::{Backend, Match, ScanKind, Shfl, Vote};

struct Faulty(CpuBackend);

impl Backend for Faulty {
    type Buffer<T: Element> = CpuBuffer<T>;

    fn name(&self) -> String {
        "faulty".into()
    }
    fn warp_width(&self) -> WarpWidth {
        self.0.warp_width()
    }
    fn synchronize(&self) -> Result<()> {
        self.0.synchronize()
    }
    fn alloc<T: Element>(&self, len: usize) -> Result<CpuBuffer<T>> {
        self.0.alloc(len)
    }
    fn upload<T: Element>(&self, data: &[T]) -> Result<CpuBuffer<T>> {
        self.0.upload(data)
    }
    fn download<T: Element>(&self, buf: &CpuBuffer<T>) -> Result<Vec<T>> {
        self.0.download(buf)
    }
    fn write<T: Element>(&self, buf: &mut CpuBuffer<T>, data: &[T]) -> Result<()> {
        self.0.write(buf, data)
    }
    fn slice<'a, T: Element>(
        &self,
        buf: &'a CpuBuffer<T>,
        range: std::ops::Range<usize>,
    ) -> Result<wavekit::View<'a, CpuBuffer<T>>> {
        self.0.slice(buf, range)
    }
    fn slice_mut<'a, T: Element>(
        &self,
        buf: &'a mut CpuBuffer<T>,
        range: std::ops::Range<usize>,
    ) -> Result<wavekit::ViewMut<'a, CpuBuffer<T>>> {
        self.0.slice_mut(buf, range)
    }
}

impl RawBackend for Faulty {
    fn raw_vote(&self, ok: Validated, l: &WarpLaunch, v: Vote, p: &[bool]) -> Result<Vec<u64>> {
        self.0.raw_vote(ok, l, v, p)
    }
    fn raw_shfl<T: Element>(
        &self,
        ok: Validated,
        l: &WarpLaunch,
        k: Shfl,
        v: &[T],
        a: i32,
        w: u32,
    ) -> Result<Vec<T>> {
        self.0.raw_shfl(ok, l, k, v, a, w)
    }
    fn raw_match<T: Element>(
        &self,
        ok: Validated,
        l: &WarpLaunch,
        k: Match,
        v: &[T],
    ) -> Result<Vec<(u64, bool)>> {
        self.0.raw_match(ok, l, k, v)
    }
    fn raw_activemask(&self, ok: Validated, l: &WarpLaunch) -> Result<Vec<u64>> {
        self.0.raw_activemask(ok, l)
    }
    fn raw_syncwarp_transpose<T: Element>(
        &self,
        ok: Validated,
        l: &WarpLaunch,
        v: &[T],
    ) -> Result<Vec<T>> {
        self.0.raw_syncwarp_transpose(ok, l, v)
    }
    fn raw_tile_shfl<T: Element>(
        &self,
        ok: Validated,
        n: usize,
        t: u32,
        k: Shfl,
        v: &[T],
        a: i32,
    ) -> Result<Vec<T>> {
        self.0.raw_tile_shfl(ok, n, t, k, v, a)
    }
    fn raw_tile_vote(
        &self,
        ok: Validated,
        n: usize,
        t: u32,
        v: Vote,
        p: &[bool],
    ) -> Result<Vec<u64>> {
        self.0.raw_tile_vote(ok, n, t, v, p)
    }
    fn raw_tile_reduce<T: Element>(
        &self,
        ok: Validated,
        n: usize,
        t: u32,
        op: ReduceOp,
        v: &[T],
    ) -> Result<Vec<T>> {
        self.0.raw_tile_reduce(ok, n, t, op, v)
    }
    fn raw_warp_reduce<T: Element>(
        &self,
        ok: Validated,
        v: &[T],
        w: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        self.0.raw_warp_reduce(ok, v, w, op)
    }
    fn raw_warp_reduce_sync<T: Element>(
        &self,
        ok: Validated,
        l: &WarpLaunch,
        op: ReduceOp,
        v: &[T],
    ) -> Result<Vec<T>> {
        self.0.raw_warp_reduce_sync(ok, l, op, v)
    }
    fn raw_warp_scan<T: Element>(
        &self,
        ok: Validated,
        v: &[T],
        w: u32,
        op: ReduceOp,
        k: ScanKind,
    ) -> Result<Vec<T>> {
        self.0.raw_warp_scan(ok, v, w, op, k)
    }
    fn raw_block_reduce<T: Element>(
        &self,
        ok: Validated,
        i: &CpuBuffer<T>,
        b: u32,
        op: ReduceOp,
        o: &mut CpuBuffer<T>,
    ) -> Result<()> {
        self.0.raw_block_reduce(ok, i, b, op, o)
    }
    fn raw_device_reduce<T: Element>(
        &self,
        ok: Validated,
        i: &CpuBuffer<T>,
        op: ReduceOp,
        o: &mut CpuBuffer<T>,
    ) -> Result<()> {
        self.0.raw_device_reduce(ok, i, op, o)?;
        let right = &mut o.as_mut_slice()[0];
        *right = T::from_bits(right.to_bits() ^ 1);
        Ok(())
    }
    fn raw_device_scan<T: Element>(
        &self,
        ok: Validated,
        i: &CpuBuffer<T>,
        o: &mut CpuBuffer<T>,
        op: ReduceOp,
        k: ScanKind,
    ) -> Result<()> {
        self.0.raw_device_scan(ok, i, o, op, k)
    }
    fn raw_segmented_reduce<T: Element>(
        &self,
        ok: Validated,
        i: &CpuBuffer<T>,
        s: SegmentSpec<'_, CpuBuffer<u32>>,
        op: ReduceOp,
        o: &mut CpuBuffer<T>,
    ) -> Result<()> {
        self.0.raw_segmented_reduce(ok, i, s, op, o)
    }
    fn raw_spmv<T: Element>(
        &self,
        ok: Validated,
        r: &CpuBuffer<u32>,
        c: &CpuBuffer<u32>,
        v: &CpuBuffer<T>,
        x: &CpuBuffer<T>,
        y: &mut CpuBuffer<T>,
        vector: u32,
    ) -> Result<()> {
        self.0.raw_spmv(ok, r, c, v, x, y, vector)
    }
    fn raw_atomic_agg_inc(
        &self,
        ok: Validated,
        s: &CpuBuffer<u32>,
        c: &mut CpuBuffer<u32>,
        o: &mut CpuBuffer<u32>,
    ) -> Result<()> {
        self.0.raw_atomic_agg_inc(ok, s, c, o)
    }
    fn raw_count_if<T: Element>(
        &self,
        ok: Validated,
        i: &CpuBuffer<T>,
        p: Predicate<T>,
        c: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        self.0.raw_count_if(ok, i, p, c)
    }
    fn raw_compact<T: Element>(
        &self,
        ok: Validated,
        i: &CpuBuffer<T>,
        p: Predicate<T>,
        stable: bool,
        o: &mut CpuBuffer<T>,
        c: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        self.0.raw_compact(ok, i, p, stable, o, c)
    }
    fn raw_histogram(
        &self,
        ok: Validated,
        k: &CpuBuffer<u32>,
        bins: u32,
        c: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        self.0.raw_histogram(ok, k, bins, c)?;
        c.as_mut_slice()[0] += 1;
        Ok(())
    }
    fn raw_sort_keys<K: Element>(
        &self,
        ok: Validated,
        k: &CpuBuffer<K>,
        o: &mut CpuBuffer<K>,
        spec: SortSpec,
    ) -> Result<()> {
        self.0.raw_sort_keys(ok, k, o, spec)?;
        // The first and last sorted keys swapped: unsorted whenever they differ (the first two
        // are often equal: the 16-bit rows' keys tie a lot).
        let last = o.as_mut_slice().len().saturating_sub(1);
        o.as_mut_slice().swap(0, last);
        Ok(())
    }
    fn raw_sort_pairs<K: Element, V: Element>(
        &self,
        ok: Validated,
        k: &CpuBuffer<K>,
        v: Option<&CpuBuffer<V>>,
        ko: Option<&mut CpuBuffer<K>>,
        vo: &mut CpuBuffer<V>,
        spec: SortSpec,
    ) -> Result<()> {
        self.0.raw_sort_pairs(ok, k, v, ko, vo, spec)
    }
    fn raw_segmented_sort<K: Element, V: Element>(
        &self,
        ok: Validated,
        k: &CpuBuffer<K>,
        v: Option<&CpuBuffer<V>>,
        segs: SegmentSpec<'_, CpuBuffer<u32>>,
        ko: &mut CpuBuffer<K>,
        vo: Option<&mut CpuBuffer<V>>,
        spec: SortSpec,
    ) -> Result<()> {
        self.0.raw_segmented_sort(ok, k, v, segs, ko, vo, spec)
    }
    fn raw_top_k<T: Element>(
        &self,
        ok: Validated,
        i: &CpuBuffer<T>,
        k: usize,
        spec: SortSpec,
        v: &mut CpuBuffer<T>,
        idx: Option<&mut CpuBuffer<u32>>,
    ) -> Result<()> {
        self.0.raw_top_k(ok, i, k, spec, v, idx)
    }
    fn raw_runs<K: Element, V: Element>(
        &self,
        ok: Validated,
        keys: &CpuBuffer<K>,
        values: Option<&CpuBuffer<V>>,
        out: RunsOut<'_, Self, K, V>,
        count: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        let out = RunsOut {
            keys: out.keys,
            values: out.values,
            lengths: out.lengths,
        };
        self.0.raw_runs(ok, keys, values, out, count)
    }
    fn raw_by_key<K: Element, V: Element>(
        &self,
        ok: Validated,
        keys: &CpuBuffer<K>,
        values: &CpuBuffer<V>,
        op: ReduceOp,
        out: ByKeyOut<'_, Self, K, V>,
    ) -> Result<()> {
        let out = match out {
            ByKeyOut::Scan { out, kind } => ByKeyOut::Scan { out, kind },
            ByKeyOut::Reduce {
                keys,
                values,
                count,
            } => ByKeyOut::Reduce {
                keys,
                values,
                count,
            },
        };
        self.0.raw_by_key(ok, keys, values, op, out)
    }
    fn raw_partition<T: Element>(
        &self,
        ok: Validated,
        i: &CpuBuffer<T>,
        first: Predicate<T>,
        second: Option<Predicate<T>>,
        o: &mut CpuBuffer<T>,
        c: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        self.0.raw_partition(ok, i, first, second, o, c)
    }
    fn raw_partition_reversed<T: Element>(
        &self,
        ok: Validated,
        i: &CpuBuffer<T>,
        first: Predicate<T>,
        second: Option<(Predicate<T>, &mut CpuBuffer<T>)>,
        o: &mut CpuBuffer<T>,
        c: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        self.0.raw_partition_reversed(ok, i, first, second, o, c)
    }
    fn raw_arg_reduce<T: Element>(
        &self,
        ok: Validated,
        i: &CpuBuffer<T>,
        op: ArgOp,
        v: &mut CpuBuffer<T>,
        idx: &mut CpuBuffer<u64>,
    ) -> Result<()> {
        self.0.raw_arg_reduce(ok, i, op, v, idx)
    }
    fn raw_segmented_arg_reduce<T: Element>(
        &self,
        ok: Validated,
        i: &CpuBuffer<T>,
        segs: SegmentSpec<'_, CpuBuffer<u32>>,
        op: ArgOp,
        v: &mut CpuBuffer<T>,
        idx: &mut CpuBuffer<u32>,
    ) -> Result<()> {
        self.0.raw_segmented_arg_reduce(ok, i, segs, op, v, idx)
    }
    fn raw_warp_arg_reduce<T: Element>(
        &self,
        ok: Validated,
        vals: &[T],
        width: u32,
        op: ArgOp,
    ) -> Result<Vec<(T, u32)>> {
        self.0.raw_warp_arg_reduce(ok, vals, width, op)
    }
}

impl ExtraCases for Faulty {}

impl BenchBackend for Faulty {
    fn copy_baseline(&self, bytes: usize, harness: &Harness) -> Result<Timing> {
        self.0.copy_baseline(bytes, harness)
    }
}

#[test]
fn wrong_results_get_no_number_and_right_ones_do() {
    let b = Faulty(CpuBackend::new(WarpWidth::W32));
    let opts = Selection {
        sizes: vec![3000],
        only: None,
    };
    let mut rows: Vec<Row> = Vec::new();
    bench_one(
        &b,
        "faulty",
        &opts,
        &Harness { warmup: 0, reps: 1 },
        &mut |r| rows.push(r),
        &mut |_, _, _| {},
    );
    let cases = super::cases::all::<Faulty>().len();
    assert_eq!(rows.len(), cases);
    for r in &rows {
        // reduce_by_key is forwarded faithfully: only the plain reduces are made wrong.
        let should_be_wrong = (r.collective.starts_with("reduce")
            && !r.collective.starts_with("reduce_by_key"))
            || r.collective.starts_with("histogram")
            || r.collective.starts_with("sort keys");
        match &r.outcome {
            Outcome::Wrong(detail) => {
                assert!(
                    should_be_wrong,
                    "{} {} refused: {detail}",
                    r.collective, r.elem
                );
                assert!(detail.contains("expected"), "{detail}");
            }
            Outcome::Measured { .. } => {
                assert!(!should_be_wrong, "{} {} was timed", r.collective, r.elem)
            }
            Outcome::Error(e) => panic!("{} {}: {e}", r.collective, r.elem),
        }
    }
    // Fourteen reduces (three ops of f32, i32 and f64; Sum and Max of f16 and bf16, Min of
    // f16), four histograms and seven key sorts (u32, f32, u64, f16, bf16; low-entropy and
    // skewed u32) are wrong.
    let wrong = 14 + 4 + 7;
    let csv = crate::csv(&rows);
    assert_eq!(
        csv.lines().filter(|l| l.ends_with(",ok")).count(),
        cases - wrong,
        "{csv}"
    );
    assert_eq!(
        csv.lines()
            .filter(|l| l.contains(",,,,,,,,,,,,wrong: "))
            .count(),
        wrong,
        "{csv}"
    );
    for line in csv.lines() {
        assert_eq!(line.split(',').count(), 17, "{line}");
    }
}

#[test]
fn only_selects_by_name_or_by_name_and_type() {
    let b = CpuBackend::new(WarpWidth::W32);
    let run = |only: &str| {
        let opts = Selection {
            sizes: vec![512],
            only: Some(only.to_string()),
        };
        let mut rows: Vec<(String, String)> = Vec::new();
        bench_one(
            &b,
            "cpu",
            &opts,
            &Harness { warmup: 0, reps: 1 },
            &mut |r| rows.push((r.collective.to_string(), r.elem.to_string())),
            &mut |_, _, _| {},
        );
        rows
    };
    let typed = run("scan inclusive sum f16");
    assert_eq!(
        typed,
        vec![("scan inclusive sum".to_string(), "f16".to_string())]
    );
    let named = run("scan inclusive sum");
    assert!(named.len() > 1, "{named:?}");
    assert!(named.iter().all(|(c, _)| c == "scan inclusive sum"));
    assert!(named.iter().any(|(_, e)| e == "bf16"));
}

#[test]
fn sizes_past_host_memory_are_refused_not_aborted() {
    use crate::case::{Refused, check_size, try_random};
    assert!(check_size(1 << 20).is_ok());
    let e = check_size(1 << 40).unwrap_err();
    assert!(e.contains("2^40") && e.contains("too large"), "{e}");
    // 2^40 f64 (8 TiB): `random` would abort the process; the fallible generator refuses.
    assert!(matches!(
        try_random::<f64>(1 << 40, 1),
        Err(Refused::Error(wavekit::WavekitError::OutOfMemory { .. }))
    ));
    assert_eq!(
        try_random::<u32>(5, 3).unwrap(),
        crate::case::random::<u32>(5, 3)
    );
}
