//! count_if, stable compaction and histogram of a sharded array (docs/SEMANTICS.md,
//! "dist_count_if", "dist_compact", "dist_histogram"). All three are integer counts, exact in
//! any order, so each rank runs the single-device collective on its shard and the ranks only
//! exchange counts.

use crate::handshake::{Call, Header, Lengths};
use crate::{Buf, Comm, Transport};
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
    /// let data: Vec<i32> = (0..1000).collect();
    /// let layout = Layout::even(1000, 4);
    /// let got = ThreadWorld::run(4, |r| {
    ///     let comm = Comm::new(r);
    ///     let shard = comm.backend().upload(&data[layout.range(comm.rank())]).unwrap();
    ///     comm.count_if(&shard, Predicate::Lt(300)).unwrap()
    /// });
    /// assert!(got.into_iter().all(|c| c.unwrap() == 300));
    /// ```
    pub fn count_if<T: Element>(&self, shard: &Buf<X, T>, pred: Predicate<T>) -> Result<u64> {
        self.handshake(
            Header {
                call: Call::CountIf,
                kind: T::KIND,
                args: pred_args(&pred),
                len: shard.len(),
            },
            Lengths::Sharded,
            Ok(()),
        )?;
        let mine = self.backend().count_if(shard, pred)?;
        Ok(self.all_counts(mine)?.iter().sum())
    }

    /// Stable compaction of the sharded array: each rank keeps its selected elements, placed in
    /// the global order by `offset`.
    ///
    /// ```
    /// use wavekit_core::{Backend, Predicate};
    /// use wavekit_dist::{Comm, Layout, ThreadWorld, Transport};
    /// let data: Vec<u32> = (0..100).collect();
    /// let layout = Layout::from_lens(&[10, 60, 30]);
    /// let parts = ThreadWorld::run(3, |r| {
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
    /// let got = ThreadWorld::run(2, |r| {
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
                len: keys.len(),
            },
            Lengths::Sharded,
            local,
        )?;
        let b = self.backend();
        let h = b.histogram(keys, bins)?;
        let mut mine = h.counts;
        mine.push(h.outside);
        let send = b.upload(&mine)?;
        let mut recv = b.alloc::<u64>(mine.len())?;
        // Integer sums are exact in any order: the transport's own allreduce is reproducible.
        self.x.all_reduce_native(&send, &mut recv, ReduceOp::Sum)?;
        let mut counts = b.download(&recv)?;
        let outside = counts.pop().expect("bins + 1 words");
        Ok(HistogramResult { counts, outside })
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
