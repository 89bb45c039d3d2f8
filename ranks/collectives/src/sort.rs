//! Stable sort of a sharded array (docs/SEMANTICS.md "dist_sort"): a sample sort. Each rank
//! sorts its shard, the ranks agree on splitters from samples of the sorted shards, every rank
//! sends each part of its shard to the rank that owns that key range (one all-to-all), and each
//! rank merges the sorted runs it received (`SliceDevice::merge_runs_keys`: a GPU merges them
//! pairwise; the CPU backend sorts again, which gives the same result).
//!
//! Why the result is the single-device stable sort, bit for bit: rank d receives exactly the
//! keys whose sort rank lies in its splitter range, a contiguous stretch of the global order,
//! and receives them concatenated in source-rank order, each source's part in its own stable
//! order. Equal keys therefore arrive in their global input order, and a stable sort of the
//! concatenation keeps it; so does a merge of the runs that takes equal keys from the earlier
//! run first, which is that stable sort. The splitters only decide how much lands where, never
//! the order.

use crate::handshake::{Call, Header, Lengths};
use crate::{Buf, Comm, SliceDevice, Transport};
use wavekit_core::{Backend, DeviceBuffer, Element, Result, Sort, SortOrder, SortSpec};

/// Samples a rank contributes to the choice of splitters: enough that the parts stay within
/// a few percent of even for random keys at 8 ranks, few enough to exchange in one small call.
const SAMPLES: usize = 64;

/// Keys read in one copy per round of a splitter's search: each round narrows its bracket
/// about a hundredfold (2^28 keys: two rounds).
const PROBES: usize = 256;

/// A bracket this short is read whole and searched on the host.
const READ_WHOLE: usize = 4096;

/// This rank's part of a distributed sort: `keys` (and, for pairs, their values) are elements
/// `offset .. offset + len` of the whole sorted array; the ranks' parts in rank order are the
/// single-device stable sort. Parts differ in length (the key ranges the ranks own).
pub struct DistSorted<B: Backend, K: Element> {
    /// This rank's sorted keys, exactly `len` of them.
    pub keys: B::Buffer<K>,
    /// Keys this rank holds after the sort.
    pub len: usize,
    /// Where this rank's part starts in the whole sorted array.
    pub offset: u64,
    /// Keys over every rank.
    pub total: u64,
}

impl<B: Backend, K: Element> std::fmt::Debug for DistSorted<B, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DistSorted")
            .field("keys", &self.keys)
            .field("len", &self.len)
            .field("offset", &self.offset)
            .field("total", &self.total)
            .finish()
    }
}

/// A rank's part of a distributed pairs sort: its keys' part and the values that moved with
/// them (as many as its keys).
pub type SortedPairs<X, K, V> = (DistSorted<<X as Transport>::Backend, K>, Buf<X, V>);

/// The order's words in a header: direction, begin and end bit.
fn order_args<K: Element>(order: SortOrder, value_kind: u64) -> [u64; 4] {
    let bits = K::KIND.size() as u32 * 8;
    let (begin, end) = order.bit_range().unwrap_or((0, bits));
    [
        u64::from(order.is_descending()),
        u64::from(begin),
        u64::from(end),
        value_kind,
    ]
}

/// The value-kind word of a keys-only sort.
pub(crate) const NO_VALUES: u64 = u64::MAX;

impl<X: Transport> Comm<X> {
    /// Stable sort of the sharded keys by `order`; each rank gets a contiguous part of the
    /// result (its length is the rank's share of the keys, not its input's).
    ///
    /// ```
    /// use wavekit_core::{Backend, SortOrder};
    /// use wavekit_dist::{Comm, Layout, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let data: Vec<u32> = (0..1000).map(|i| (i * 7919) % 1000).collect();
    /// let layout = Layout::from_lens(&[100, 0, 650, 250]);
    /// let parts = ThreadWorld::<CpuBackend>::run(4, |r| {
    ///     let comm = Comm::new(r);
    ///     let shard = comm.backend().upload(&data[layout.range(comm.rank())]).unwrap();
    ///     let s = comm.sort_keys(&shard, SortOrder::ASCENDING).unwrap();
    ///     (s.offset, comm.backend().download(&s.keys).unwrap())
    /// });
    /// let mut all = Vec::new();
    /// for p in parts {
    ///     let (offset, keys) = p.unwrap();
    ///     assert_eq!(offset as usize, all.len());
    ///     all.extend(keys);
    /// }
    /// assert_eq!(all, (0..1000).collect::<Vec<u32>>());
    /// ```
    pub fn sort_keys<K: Element>(
        &self,
        keys: &Buf<X, K>,
        order: SortOrder,
    ) -> Result<DistSorted<X::Backend, K>> {
        let local = order.spec::<K>().map(|_| ());
        self.sort_handshake::<K>(keys.len(), order, NO_VALUES, local)?;
        // Valid: the handshake passed this rank's own check of it.
        let spec = order.spec::<K>()?;
        let sorted = self.backend().sort_keys(keys, order)?;
        if self.world() == 1 {
            // One rank: its stable sort is the whole answer (no splitters, no exchange).
            return self.placed(sorted, &[keys.len()]);
        }
        let (parts, recv) = self.plan(&sorted, &spec)?;
        let got = self.exchange(&sorted, &parts, &recv)?;
        let keys = self.backend().merge_runs_keys(&got, &recv, order)?;
        self.placed(keys, &recv)
    }

    /// Stable sort of sharded key-value pairs by the keys: [`sort_keys`](Self::sort_keys), each
    /// value moving with its key; the values come back beside the keys' part.
    ///
    /// ```
    /// use wavekit_core::{Backend, SortOrder};
    /// use wavekit_dist::{Comm, Layout, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let keys: Vec<i32> = vec![3, -1, 3, 0, -1, 2];
    /// let vals: Vec<u32> = (0..6).collect();
    /// let layout = Layout::from_lens(&[2, 4]);
    /// let parts = ThreadWorld::<CpuBackend>::run(2, |r| {
    ///     let comm = Comm::new(r);
    ///     let b = comm.backend();
    ///     let k = b.upload(&keys[layout.range(comm.rank())]).unwrap();
    ///     let v = b.upload(&vals[layout.range(comm.rank())]).unwrap();
    ///     let (s, v) = comm.sort_pairs(&k, &v, SortOrder::ASCENDING).unwrap();
    ///     (b.download(&s.keys).unwrap(), b.download(&v).unwrap())
    /// });
    /// let (mut k, mut v) = (Vec::new(), Vec::new());
    /// for p in parts {
    ///     let (pk, pv) = p.unwrap();
    ///     k.extend(pk);
    ///     v.extend(pv);
    /// }
    /// assert_eq!(k, [-1, -1, 0, 2, 3, 3]);
    /// assert_eq!(v, [1, 4, 3, 5, 0, 2]); // equal keys keep their input order
    /// ```
    pub fn sort_pairs<K: Element, V: Element>(
        &self,
        keys: &Buf<X, K>,
        values: &Buf<X, V>,
        order: SortOrder,
    ) -> Result<SortedPairs<X, K, V>> {
        let local = order
            .spec::<K>()
            .map(|_| ())
            .and_then(|()| crate::check_len("values (one per key)", keys.len(), values.len()));
        self.sort_handshake::<K>(keys.len(), order, V::KIND as u64, local)?;
        let spec = order.spec::<K>()?;
        let b = self.backend();
        let (sk, sv) = b.sort_pairs(keys, values, order)?;
        if self.world() == 1 {
            return Ok((self.placed(sk, &[keys.len()])?, sv));
        }
        let (parts, recv) = self.plan(&sk, &spec)?;
        let gk = self.exchange(&sk, &parts, &recv)?;
        let gv = self.exchange(&sv, &parts, &recv)?;
        let (keys, values) = b.merge_runs_pairs(&gk, &gv, &recv, order)?;
        Ok((self.placed(keys, &recv)?, values))
    }

    fn sort_handshake<K: Element>(
        &self,
        len: usize,
        order: SortOrder,
        value_kind: u64,
        local: Result<()>,
    ) -> Result<()> {
        let header = Header {
            call: Call::Sort,
            kind: K::KIND,
            args: order_args::<K>(order, value_kind),
            len,
        };
        self.handshake(header, Lengths::Sharded, local).map(|_| ())
    }

    /// Splitters from every rank's samples of its sorted shard, then how many of this rank's
    /// sorted keys go to each rank (`parts`) and how many it receives from each (`recv`).
    fn plan<K: Element>(
        &self,
        sorted: &Buf<X, K>,
        spec: &SortSpec,
    ) -> Result<(Vec<usize>, Vec<usize>)> {
        let (world, me, n) = (self.world(), self.rank(), sorted.len());
        let picks = SAMPLES.min(n);
        let mut mine = vec![0u64; SAMPLES + 1];
        mine[0] = picks as u64;
        // Evenly spaced, the middle of each of `picks` stretches of n / picks keys.
        if let Some(step) = n.checked_div(picks) {
            let got = self
                .backend()
                .download_strided(sorted, step / 2, step, picks)?;
            for (slot, k) in mine[1..].iter_mut().zip(got) {
                *slot = spec.rank(k.order_bits());
            }
        }
        let all = self.exchange_words(&mine)?;
        let mut samples: Vec<u64> = all
            .chunks(SAMPLES + 1)
            .flat_map(|w| w[1..1 + w[0] as usize].iter().copied())
            .collect();
        samples.sort_unstable();
        // Rank d < world - 1 owns the ranks up to and including splitter d.
        let splitters: Vec<u64> = (1..world)
            .map(|d| {
                samples
                    .get(d * samples.len() / world)
                    .copied()
                    .unwrap_or(u64::MAX)
            })
            .collect();
        let mut parts = Vec::with_capacity(world);
        let mut start = 0;
        for &s in &splitters {
            // Splitters ascend, so each bound is at or past the one before.
            let end = self.upper_bound(sorted, start, s, spec)?;
            parts.push(end - start);
            start = end;
        }
        parts.push(n - start);
        let counts = self.exchange_words(&parts.iter().map(|&c| c as u64).collect::<Vec<_>>())?;
        let recv = (0..world)
            .map(|s| counts[s * world + me] as usize)
            .collect();
        Ok((parts, recv))
    }

    /// The first position at or past `from` whose key ranks above `splitter` (the keys are
    /// sorted by rank): the bracket narrowed by evenly spaced probes, each round's read in one
    /// copy, then read whole; a handful of host round trips instead of one a step.
    fn upper_bound<K: Element>(
        &self,
        sorted: &Buf<X, K>,
        from: usize,
        splitter: u64,
        spec: &SortSpec,
    ) -> Result<usize> {
        let b = self.backend();
        let above = |k: &K| spec.rank(k.order_bits()) > splitter;
        // Keys before lo rank at or below the splitter, keys from hi on above it.
        let (mut lo, mut hi) = (from, sorted.len());
        while hi - lo > READ_WHOLE {
            let step = (hi - lo) / (PROBES + 1);
            let probes = b.download_strided(sorted, lo + step, step, PROBES)?;
            let below = probes.partition_point(|k| !above(k));
            if below < PROBES {
                hi = lo + (below + 1) * step;
            }
            if below > 0 {
                lo += below * step + 1;
            }
        }
        let bracket = b.slice(sorted, lo..hi)?;
        let whole = b.download(&bracket)?;
        Ok(lo + whole.partition_point(|k| !above(k)))
    }

    /// Every rank's `parts[d]` elements of `sorted` to rank d; what this rank receives, in
    /// source-rank order.
    fn exchange<T: Element>(
        &self,
        sorted: &Buf<X, T>,
        parts: &[usize],
        recv: &[usize],
    ) -> Result<Buf<X, T>> {
        let mut got = self.backend().alloc::<T>(recv.iter().sum())?;
        self.transport()
            .all_to_all_v(sorted, parts, &mut got, recv)?;
        Ok(got)
    }

    /// This rank's sorted part with its place in the whole: every rank's received total.
    fn placed<K: Element>(
        &self,
        keys: Buf<X, K>,
        recv: &[usize],
    ) -> Result<DistSorted<X::Backend, K>> {
        let len = keys.len();
        debug_assert_eq!(len, recv.iter().sum::<usize>());
        let lens = self.all_counts(len as u64)?;
        Ok(DistSorted {
            keys,
            len,
            offset: lens[..self.rank()].iter().sum(),
            total: lens.iter().sum(),
        })
    }
}
