//! count_if, stable compaction and histogram of a sharded array (docs/SEMANTICS.md,
//! "dist_count_if", "dist_compact", "dist_histogram"). All three are integer counts, exact in
//! any order, so each rank runs the single-device collective on its shard and the ranks only
//! exchange counts.

use crate::handshake::{Call, Header, Lengths};
use crate::{Buf, Comm, SliceDevice, Transport, check_len};
use wavekit_core::{
    Backend, Collectives, DeviceBuffer, Element, HistogramResult, Predicate, ReduceOp, Result,
    WavekitError,
};

/// This rank's part of a distributed stable compaction: the selected elements of its shard,
/// `data[..len]`, which are elements `offset .. offset + len` of the whole compacted array
/// (the ranks' parts in rank order are the single-device stable compaction).
pub struct DistCompacted<B: Backend, T: Element> {
    /// This rank's output buffer; the selected elements are its first `len`.
    pub data: B::Buffer<T>,
    /// Elements this rank selected.
    pub len: usize,
    /// Where this rank's part starts in the whole compacted array.
    pub offset: u64,
    /// Selected elements over every rank.
    pub total: u64,
}

impl<B: Backend, T: Element> std::fmt::Debug for DistCompacted<B, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DistCompacted")
            .field("data", &self.data)
            .field("len", &self.len)
            .field("offset", &self.offset)
            .field("total", &self.total)
            .finish()
    }
}

fn pred_args<T: Element>(pred: &Predicate<T>) -> [u64; 4] {
    let (code, a, b) = pred.encode();
    [code as u64, a, b, 0]
}

impl<X: Transport> Comm<X> {
    /// Elements of the whole sharded array for which `pred` holds, on every rank.
    ///
    /// ```
    /// use wavekit_core::{Backend, Predicate};
    /// use wavekit_dist::{Comm, Layout, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let data: Vec<i32> = (0..1000).collect();
    /// let layout = Layout::even(1000, 4);
    /// let got = ThreadWorld::<CpuBackend>::run(4, |r| {
    ///     let comm = Comm::new(r);
    ///     let shard = comm.backend().upload(&data[layout.range(comm.rank())]).unwrap();
    ///     comm.count_if(&shard, Predicate::Lt(300)).unwrap()
    /// });
    /// assert!(got.into_iter().all(|c| c.unwrap() == 300));
    /// ```
    pub fn count_if<T: Element>(&self, shard: &Buf<X, T>, pred: Predicate<T>) -> Result<u64> {
        let mut plan = self.count_if_plan(shard.len(), pred, false)?;
        let b = self.backend();
        let mut out = b.alloc::<u64>(1)?;
        self.x
            .batch(|| self.count_if_into(&mut plan, shard, &mut out))?;
        Ok(b.download(&out)?[0])
    }

    /// Prepares [`Comm::count_if_into`] for shards of `len` elements on this rank: the
    /// handshake and the buffers, once.
    ///
    /// # Errors
    /// `RankMismatch` (ranks called with different predicates or types), `RankLost`.
    pub fn plan_count_if<T: Element>(
        &self,
        len: usize,
        pred: Predicate<T>,
    ) -> Result<CountIfPlan<X, T>> {
        self.count_if_plan(len, pred, true)
    }

    /// `capture_ready`: the run's allreduce made once (`warm_up_counts`).
    fn count_if_plan<T: Element>(
        &self,
        len: usize,
        pred: Predicate<T>,
        capture_ready: bool,
    ) -> Result<CountIfPlan<X, T>> {
        self.handshake(
            Header {
                call: Call::CountIf,
                kind: T::KIND,
                args: pred_args(&pred),
                len,
            },
            Lengths::Sharded,
            Ok(()),
        )?;
        let b = self.backend();
        b.reserve::<T>(len)?;
        let local = b.alloc::<u64>(1)?;
        if capture_ready {
            self.warm_up_counts(&local)?;
        }
        Ok(CountIfPlan { pred, len, local })
    }

    /// Enqueues the planned count of the whole array into `out` (one element, on every rank):
    /// the local count and the transport's allreduce of the counts (integers: exact in any
    /// order), on the backend's stream with no host round trip, graph-capturable as
    /// [`Comm::reduce_into`].
    ///
    /// ```
    /// use wavekit_core::{Backend, DeviceBuffer, Predicate};
    /// use wavekit_dist::{Comm, Layout, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let data: Vec<i32> = (0..1000).collect();
    /// let layout = Layout::from_lens(&[0, 700, 300]);
    /// let got = ThreadWorld::<CpuBackend>::run(3, |r| {
    ///     let comm = Comm::new(r);
    ///     let b = comm.backend();
    ///     let shard = b.upload(&data[layout.range(comm.rank())]).unwrap();
    ///     let mut plan = comm.plan_count_if(shard.len(), Predicate::Ge(900)).unwrap();
    ///     let mut out = b.alloc::<u64>(1).unwrap();
    ///     comm.count_if_into(&mut plan, &shard, &mut out).unwrap();
    ///     comm.synchronize().unwrap();
    ///     b.download(&out).unwrap()[0]
    /// });
    /// assert!(got.into_iter().all(|c| c.unwrap() == 100));
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` (the shard is not the planned length, `out` not one element) before
    /// anything is enqueued; a transport or backend error.
    pub fn count_if_into<T: Element>(
        &self,
        plan: &mut CountIfPlan<X, T>,
        shard: &Buf<X, T>,
        out: &mut Buf<X, u64>,
    ) -> Result<()> {
        check_len(
            "planned count_if shard (the planned length)",
            plan.len,
            shard.len(),
        )?;
        check_len("count_if output (one element)", 1, out.len())?;
        let b = self.backend();
        self.x.enqueue(|| {
            b.count_if_into(shard, plan.pred, &mut plan.local)?;
            // Integer sums are exact in any order: the transport's own allreduce is reproducible.
            self.x.all_reduce_native(&plan.local, out, ReduceOp::Sum)
        })
    }

    /// Stable compaction of the sharded array: each rank keeps its selected elements, placed in
    /// the global order by `offset`.
    ///
    /// ```
    /// use wavekit_core::{Backend, Predicate};
    /// use wavekit_dist::{Comm, Layout, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let data: Vec<u32> = (0..100).collect();
    /// let layout = Layout::from_lens(&[10, 60, 30]);
    /// let parts = ThreadWorld::<CpuBackend>::run(3, |r| {
    ///     let comm = Comm::new(r);
    ///     let b = comm.backend();
    ///     let shard = b.upload(&data[layout.range(comm.rank())]).unwrap();
    ///     let c = comm.compact(&shard, Predicate::Ge(5)).unwrap();
    ///     (c.offset, b.download(&c.data).unwrap()[..c.len].to_vec())
    /// });
    /// let parts: Vec<_> = parts.into_iter().map(|p| p.unwrap()).collect();
    /// assert_eq!(parts[1].0, 5);
    /// let all: Vec<u32> = parts.into_iter().flat_map(|(_, d)| d).collect();
    /// assert_eq!(all, (5..100).collect::<Vec<u32>>());
    /// ```
    pub fn compact<T: Element>(
        &self,
        shard: &Buf<X, T>,
        pred: Predicate<T>,
    ) -> Result<DistCompacted<X::Backend, T>> {
        self.handshake(
            Header {
                call: Call::Compact,
                kind: T::KIND,
                args: pred_args(&pred),
                len: shard.len(),
            },
            Lengths::Sharded,
            Ok(()),
        )?;
        let local = self.backend().compact(shard, pred, true)?;
        let counts = self.all_counts(local.len as u64)?;
        Ok(DistCompacted {
            data: local.data,
            len: local.len,
            offset: counts[..self.rank()].iter().sum(),
            total: counts.iter().sum(),
        })
    }

    /// Histogram of the keys of the whole sharded array, on every rank.
    ///
    /// ```
    /// use wavekit_core::Backend;
    /// use wavekit_dist::{Comm, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let got = ThreadWorld::<CpuBackend>::run(2, |r| {
    ///     let comm = Comm::new(r);
    ///     let keys = comm.backend().upload(&[0u32, 1, 1, 7]).unwrap();
    ///     comm.histogram(&keys, 2).unwrap()
    /// });
    /// for h in got {
    ///     let h = h.unwrap();
    ///     assert_eq!((h.counts, h.outside), (vec![2, 4], 2));
    /// }
    /// ```
    pub fn histogram(&self, keys: &Buf<X, u32>, bins: u32) -> Result<HistogramResult> {
        let mut plan = self.histogram_plan(keys.len(), bins, false)?;
        let b = self.backend();
        let mut out = b.alloc::<u64>(bins as usize + 1)?;
        self.x
            .batch(|| self.histogram_into(&mut plan, keys, &mut out))?;
        let mut counts = b.download(&out)?;
        let outside = counts.pop().expect("bins + 1 words");
        Ok(HistogramResult { counts, outside })
    }

    /// Prepares [`Comm::histogram_into`] for `len` keys on this rank: the handshake and the
    /// buffers, once.
    ///
    /// # Errors
    /// `ZeroBins`, `RankMismatch` (ranks called with different bin counts), `RankLost`.
    pub fn plan_histogram(&self, len: usize, bins: u32) -> Result<HistogramPlan<X>> {
        self.histogram_plan(len, bins, true)
    }

    /// `capture_ready`: the run's allreduce made once (`warm_up_counts`).
    fn histogram_plan(
        &self,
        len: usize,
        bins: u32,
        capture_ready: bool,
    ) -> Result<HistogramPlan<X>> {
        let local = if bins == 0 {
            Err(WavekitError::ZeroBins)
        } else {
            Ok(())
        };
        self.handshake(
            Header {
                call: Call::Histogram,
                kind: u32::KIND,
                args: [bins as u64, 0, 0, 0],
                len,
            },
            Lengths::Sharded,
            local,
        )?;
        let b = self.backend();
        b.reserve::<u32>(len)?;
        let local = b.alloc::<u64>(bins as usize + 1)?;
        if capture_ready {
            self.warm_up_counts(&local)?;
        }
        Ok(HistogramPlan { bins, len, local })
    }

    /// Enqueues the planned histogram of the whole array into `counts` (`bins + 1` words, the
    /// last for keys outside, on every rank): the local histogram and the transport's allreduce
    /// of the counts, on the backend's stream with no host round trip, graph-capturable as
    /// [`Comm::reduce_into`].
    ///
    /// ```
    /// use wavekit_core::{Backend, DeviceBuffer};
    /// use wavekit_dist::{Comm, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let got = ThreadWorld::<CpuBackend>::run(2, |r| {
    ///     let comm = Comm::new(r);
    ///     let b = comm.backend();
    ///     let keys = b.upload(&[0u32, 1, 1, 7]).unwrap();
    ///     let mut plan = comm.plan_histogram(keys.len(), 2).unwrap();
    ///     let mut counts = b.alloc::<u64>(3).unwrap();
    ///     comm.histogram_into(&mut plan, &keys, &mut counts).unwrap();
    ///     comm.synchronize().unwrap();
    ///     b.download(&counts).unwrap()
    /// });
    /// assert!(got.into_iter().all(|c| c.unwrap() == [2, 4, 2]));
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` (the keys are not the planned length, `counts` not `bins + 1` long)
    /// before anything is enqueued; a transport or backend error.
    pub fn histogram_into(
        &self,
        plan: &mut HistogramPlan<X>,
        keys: &Buf<X, u32>,
        counts: &mut Buf<X, u64>,
    ) -> Result<()> {
        check_len(
            "planned histogram keys (the planned length)",
            plan.len,
            keys.len(),
        )?;
        check_len(
            "histogram counts (bins + 1, the last for keys outside)",
            plan.bins as usize + 1,
            counts.len(),
        )?;
        let b = self.backend();
        self.x.enqueue(|| {
            b.histogram_into(keys, plan.bins, &mut plan.local)?;
            self.x.all_reduce_native(&plan.local, counts, ReduceOp::Sum)
        })
    }

    /// The planned run's allreduce of `local` once, at plan time (as `ReducePlan`'s warm-up:
    /// NCCL connects peers on first use, which a graph capture does not allow).
    fn warm_up_counts(&self, local: &Buf<X, u64>) -> Result<()> {
        let mut out = self.backend().alloc::<u64>(local.len())?;
        self.x
            .batch(|| self.x.all_reduce_native(local, &mut out, ReduceOp::Sum))
    }

    /// Every rank's count, in rank order.
    pub(crate) fn all_counts(&self, mine: u64) -> Result<Vec<u64>> {
        let ones = vec![1; self.world()];
        Ok(self
            .gather_counted(&[mine], &ones)?
            .into_iter()
            .map(|v| v[0])
            .collect())
    }
}

/// A distributed count_if prepared by [`Comm::plan_count_if`]: the predicate, the shard length
/// and the buffer of this rank's count.
pub struct CountIfPlan<X: Transport, T: Element> {
    pred: Predicate<T>,
    len: usize,
    local: Buf<X, u64>,
}

impl<X: Transport, T: Element> std::fmt::Debug for CountIfPlan<X, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CountIfPlan")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// A distributed histogram prepared by [`Comm::plan_histogram`]: the bins, the key count and
/// the buffer of this rank's counts.
pub struct HistogramPlan<X: Transport> {
    bins: u32,
    len: usize,
    local: Buf<X, u64>,
}

impl<X: Transport> std::fmt::Debug for HistogramPlan<X> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistogramPlan")
            .field("bins", &self.bins)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}
