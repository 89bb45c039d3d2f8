//! The bench refuses a wrong result: a backend that is the CPU oracle except for a
//! deliberately wrong device reduce (one ulp off) and histogram (one key lost) gets no number
//! for those, and numbers for everything else.

use super::timing::{BenchBackend, Harness, Timing};
use super::{Options, Outcome, Row, bench_one};
use crate::backend::{
    Backend, HistogramResult, Match, ScanKind, SegmentSpec, Shfl, Vote, WarpLaunch,
};
use crate::cpu::{CpuBackend, CpuBuffer};
use crate::element::Element;
use crate::error::Result;
use crate::op::{Predicate, ReduceOp};
use crate::width::WarpWidth;

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
    fn raw_vote(&self, l: &WarpLaunch, v: Vote, p: &[bool]) -> Result<Vec<u64>> {
        self.0.raw_vote(l, v, p)
    }
    fn raw_shfl<T: Element>(
        &self,
        l: &WarpLaunch,
        k: Shfl,
        v: &[T],
        a: u32,
        w: u32,
    ) -> Result<Vec<T>> {
        self.0.raw_shfl(l, k, v, a, w)
    }
    fn raw_match<T: Element>(&self, l: &WarpLaunch, k: Match, v: &[T]) -> Result<Vec<(u64, bool)>> {
        self.0.raw_match(l, k, v)
    }
    fn raw_activemask(&self, l: &WarpLaunch) -> Result<Vec<u64>> {
        self.0.raw_activemask(l)
    }
    fn raw_syncwarp_transpose<T: Element>(&self, l: &WarpLaunch, v: &[T]) -> Result<Vec<T>> {
        self.0.raw_syncwarp_transpose(l, v)
    }
    fn raw_tile_shfl<T: Element>(
        &self,
        n: usize,
        t: u32,
        k: Shfl,
        v: &[T],
        a: u32,
    ) -> Result<Vec<T>> {
        self.0.raw_tile_shfl(n, t, k, v, a)
    }
    fn raw_tile_vote(&self, n: usize, t: u32, v: Vote, p: &[bool]) -> Result<Vec<u64>> {
        self.0.raw_tile_vote(n, t, v, p)
    }
    fn raw_tile_reduce<T: Element>(
        &self,
        n: usize,
        t: u32,
        op: ReduceOp,
        v: &[T],
    ) -> Result<Vec<T>> {
        self.0.raw_tile_reduce(n, t, op, v)
    }
    fn raw_warp_reduce<T: Element>(&self, v: &[T], w: u32, op: ReduceOp) -> Result<Vec<T>> {
        self.0.raw_warp_reduce(v, w, op)
    }
    fn raw_warp_scan<T: Element>(
        &self,
        v: &[T],
        w: u32,
        op: ReduceOp,
        k: ScanKind,
    ) -> Result<Vec<T>> {
        self.0.raw_warp_scan(v, w, op, k)
    }
    fn raw_block_reduce<T: Element>(
        &self,
        i: &CpuBuffer<T>,
        b: u32,
        op: ReduceOp,
    ) -> Result<Vec<T>> {
        self.0.raw_block_reduce(i, b, op)
    }
    fn raw_device_reduce<T: Element>(&self, i: &CpuBuffer<T>, op: ReduceOp) -> Result<T> {
        let right = self.0.raw_device_reduce(i, op)?;
        Ok(T::from_bits(right.to_bits() ^ 1))
    }
    fn raw_device_scan<T: Element>(
        &self,
        i: &CpuBuffer<T>,
        o: &mut CpuBuffer<T>,
        op: ReduceOp,
        k: ScanKind,
    ) -> Result<()> {
        self.0.raw_device_scan(i, o, op, k)
    }
    fn raw_segmented_reduce<T: Element>(
        &self,
        i: &CpuBuffer<T>,
        s: SegmentSpec<'_, CpuBuffer<u32>>,
        op: ReduceOp,
        o: &mut CpuBuffer<T>,
    ) -> Result<()> {
        self.0.raw_segmented_reduce(i, s, op, o)
    }
    fn raw_spmv<T: Element>(
        &self,
        r: &CpuBuffer<u32>,
        c: &CpuBuffer<u32>,
        v: &CpuBuffer<T>,
        x: &CpuBuffer<T>,
        y: &mut CpuBuffer<T>,
        vector: u32,
    ) -> Result<()> {
        self.0.raw_spmv(r, c, v, x, y, vector)
    }
    fn raw_atomic_agg_inc(
        &self,
        s: &CpuBuffer<u32>,
        c: &mut CpuBuffer<u32>,
        o: &mut CpuBuffer<u32>,
    ) -> Result<()> {
        self.0.raw_atomic_agg_inc(s, c, o)
    }
    fn raw_count_if<T: Element>(&self, i: &CpuBuffer<T>, p: Predicate<T>) -> Result<u64> {
        self.0.raw_count_if(i, p)
    }
    fn raw_compact<T: Element>(
        &self,
        i: &CpuBuffer<T>,
        p: Predicate<T>,
        stable: bool,
        o: &mut CpuBuffer<T>,
    ) -> Result<usize> {
        self.0.raw_compact(i, p, stable, o)
    }
    fn raw_histogram(&self, k: &CpuBuffer<u32>, bins: u32) -> Result<HistogramResult> {
        let mut h = self.0.raw_histogram(k, bins)?;
        h.counts[0] -= 1;
        Ok(h)
    }
}

impl BenchBackend for Faulty {
    fn copy_baseline(&self, bytes: usize, harness: &Harness) -> Result<Timing> {
        self.0.copy_baseline(bytes, harness)
    }
}

#[test]
fn wrong_results_get_no_number_and_right_ones_do() {
    let b = Faulty(CpuBackend::new(WarpWidth::W32));
    let opts = Options {
        backend: None,
        warp: None,
        sizes: vec![3000],
        reps: 1,
        only: None,
        csv: None,
    };
    let mut rows: Vec<Row> = Vec::new();
    bench_one(
        &b,
        "faulty",
        &opts,
        &Harness { warmup: 0, reps: 1 },
        &mut |r| rows.push(r),
    );
    assert_eq!(rows.len(), 12);
    for r in &rows {
        let should_be_wrong =
            r.collective.starts_with("reduce") || r.collective.starts_with("histogram");
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
    let csv = super::csv(&rows);
    assert_eq!(
        csv.lines().filter(|l| l.ends_with(",ok")).count(),
        12 - 5,
        "{csv}"
    );
    assert_eq!(
        csv.lines().filter(|l| l.contains(",,,,,,,wrong: ")).count(),
        5,
        "{csv}"
    );
}
