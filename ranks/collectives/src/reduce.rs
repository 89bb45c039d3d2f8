//! Reduce of a sharded array to one value (docs/SEMANTICS.md, "dist_reduce"): each rank
//! computes the canonical partials of the device-reduce tiles it owns (rebuilding the tiles
//! that straddle shards), the partials travel in one allgather, and every rank reduces them in
//! tile order by the single-device rule. The result is the single-device `reduce` of the whole
//! array, bit for bit, whatever the rank count and the shard split.

use crate::device::pack_gathered;
use crate::handshake::{Call, EVERY_RANK, Header, Lengths};
use crate::layout::{Edges, Layout};
use crate::{Buf, Comm, Mode, SliceDevice, Transport, check_len};
use std::ops::Range;
use std::sync::PoisonError;
use wavekit_core::canonical::REDUCE_TILE;
use wavekit_core::{Backend, Collectives, DeviceBuffer, Element, ReduceOp, Result, WavekitError};

impl<X: Transport> Comm<X> {
    /// The reduction of the whole sharded array, on every rank. `shard` is this rank's part
    /// (it may be empty; the whole array may not).
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, ReduceOp};
    /// use wavekit_dist::{Comm, Layout, Mode, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let data: Vec<f64> = (0..9000).map(|i| 1.0 / (1.0 + i as f64)).collect();
    /// let layout = Layout::from_lens(&[100, 0, 8000, 900]);
    /// let got = ThreadWorld::<CpuBackend>::run(4, |r| {
    ///     let comm = Comm::new(r);
    ///     let shard = comm.backend().upload(&data[layout.range(comm.rank())]).unwrap();
    ///     comm.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible).unwrap()
    /// });
    /// let one = CpuBackend::new(wavekit_core::WarpWidth::W32);
    /// let want = one.reduce(&one.upload(&data).unwrap(), ReduceOp::Sum).unwrap();
    /// assert!(got.into_iter().all(|g| g.unwrap().to_bits() == want.to_bits()));
    /// ```
    pub fn all_reduce_value<T: Element>(
        &self,
        shard: &Buf<X, T>,
        op: ReduceOp,
        mode: Mode,
    ) -> Result<T> {
        self.reduce_to(shard, op, mode, None)
    }

    /// As [`Comm::all_reduce_value`], the value returned on `root` only (`None` elsewhere).
    /// Every rank must name the same root, below the world (`IndexOutOfRange` on a rank that
    /// names another, `RankMismatch` on the others).
    pub fn reduce_value<T: Element>(
        &self,
        shard: &Buf<X, T>,
        op: ReduceOp,
        mode: Mode,
        root: usize,
    ) -> Result<Option<T>> {
        let v = self.reduce_to(shard, op, mode, Some(root))?;
        Ok((self.rank() == root).then_some(v))
    }

    /// The reduce, with `root` in the handshake (`None`: every rank gets the value): planned,
    /// run on the device and waited for, and only the value read back.
    fn reduce_to<T: Element>(
        &self,
        shard: &Buf<X, T>,
        op: ReduceOp,
        mode: Mode,
        root: Option<usize>,
    ) -> Result<T> {
        let layout = self.reduce_handshake::<T>(shard.len(), op, mode, root)?;
        // The last call's plan and output serve the next one of the same layout, op, mode and
        // type: allocating and freeing them on every call cost more than the reduce on 4 GPUs
        // of one process (the driver serialises the threads' allocations).
        let mut cache = self
            .reduce_cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let hit = cache
            .as_mut()
            .and_then(|c| c.downcast_mut::<Cached<X, T>>())
            .is_some_and(|c| c.layout == layout && c.plan.op == op && c.mode == mode);
        if !hit {
            // Not captured: NCCL may connect on this first use.
            *cache = None;
            let plan = self.build_reduce_plan(&layout, shard.len(), op, mode, false)?;
            let out = self.backend().alloc::<T>(1)?;
            *cache = Some(Box::new(Cached {
                layout,
                mode,
                plan,
                out,
            }));
        }
        let c = cache
            .as_mut()
            .and_then(|c| c.downcast_mut::<Cached<X, T>>())
            .expect("cached above");
        self.x
            .batch(|| self.reduce_into(&mut c.plan, shard, &mut c.out))?;
        Ok(self.backend().download(&c.out)?[0])
    }

    /// Prepares the reduce of shards of `len` elements on this rank (every rank calls it, each
    /// with its own length): the handshake, the layout, the exchange's buffers and the
    /// backend's workspace, once. [`Comm::reduce_into`] then runs it as often as wanted.
    ///
    /// # Errors
    /// As [`Comm::all_reduce_value`]: `UnsupportedOp`, `RankMismatch` (ranks called with
    /// different ops, modes or types), `EmptyInput` (every shard empty), `RankLost`.
    pub fn plan_reduce<T: Element>(
        &self,
        len: usize,
        op: ReduceOp,
        mode: Mode,
    ) -> Result<ReducePlan<X, T>> {
        self.plan_reduce_to(len, op, mode, None, true)
    }

    /// `capture_ready`: the transport's calls made once (`Steps::warm_up`).
    fn plan_reduce_to<T: Element>(
        &self,
        len: usize,
        op: ReduceOp,
        mode: Mode,
        root: Option<usize>,
        capture_ready: bool,
    ) -> Result<ReducePlan<X, T>> {
        let layout = self.reduce_handshake::<T>(len, op, mode, root)?;
        self.build_reduce_plan(&layout, len, op, mode, capture_ready)
    }

    /// The reduce's handshake: the layout of the shards.
    fn reduce_handshake<T: Element>(
        &self,
        len: usize,
        op: ReduceOp,
        mode: Mode,
        root: Option<usize>,
    ) -> Result<Layout> {
        let world = self.world();
        let root_ok = match root {
            Some(r) if r >= world => Err(WavekitError::IndexOutOfRange {
                what: "root rank",
                value: r as u64,
                limit: world as u64,
            }),
            _ => Ok(()),
        };
        let local = op.check::<T>().and(root_ok);
        let root_word = root.map_or(EVERY_RANK, |r| r as u64);
        let layout = self.handshake(
            Header {
                call: Call::Reduce,
                kind: T::KIND,
                args: [op as u64, mode as u64, root_word, 0],
                len,
            },
            Lengths::Sharded,
            local,
        )?;
        if layout.total() == 0 {
            return Err(WavekitError::EmptyInput {
                what: "distributed reduce input (every shard)",
            });
        }
        Ok(layout)
    }

    fn build_reduce_plan<T: Element>(
        &self,
        layout: &Layout,
        len: usize,
        op: ReduceOp,
        mode: Mode,
        capture_ready: bool,
    ) -> Result<ReducePlan<X, T>> {
        let b = self.backend();
        let mut steps = match mode {
            Mode::Fast => {
                // The transport's allreduce must take the op (NCCL's has no bitwise ones).
                self.x.check_native_op::<T>(op)?;
                // An empty shard contributes the identity, put there once.
                let local = b.upload(&[T::identity(op)])?;
                Steps::Fast { local }
            }
            Mode::Reproducible => self.canonical_steps(layout)?,
        };
        b.reserve::<T>(len.max(steps.largest()))?;
        // The fold runs over partials of the accumulator type (f32 for the 16-bit floats).
        b.reserve::<T::Acc>(steps.largest())?;
        if capture_ready {
            self.x.batch(|| steps.warm_up(self, op))?;
        }
        Ok(ReducePlan { op, len, steps })
    }

    /// Enqueues the planned reduce of `shard` into `out` (one element, on every rank) on the
    /// backend's stream: the local pass, the exchange of the partials over the transport and
    /// the fold of them, with no host round trip and no allocation, so that a CUDA or HIP
    /// graph can capture it. Every rank must run its plan. [`Comm::synchronize`] (or the
    /// caller's own wait on the stream) waits for it.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, DeviceBuffer, ReduceOp};
    /// use wavekit_dist::{Comm, Layout, Mode, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let data: Vec<f32> = (0..20_000).map(|i| (i as f32).cos()).collect();
    /// let layout = Layout::from_lens(&[7000, 13_000]);
    /// let got = ThreadWorld::<CpuBackend>::run(2, |r| {
    ///     let comm = Comm::new(r);
    ///     let b = comm.backend();
    ///     let shard = b.upload(&data[layout.range(comm.rank())]).unwrap();
    ///     let mut plan = comm.plan_reduce::<f32>(shard.len(), ReduceOp::Sum, Mode::Reproducible)
    ///         .unwrap();
    ///     let mut out = b.alloc::<f32>(1).unwrap();
    ///     comm.reduce_into(&mut plan, &shard, &mut out).unwrap();
    ///     comm.synchronize().unwrap();
    ///     b.download(&out).unwrap()[0]
    /// });
    /// let one = CpuBackend::new(wavekit_core::WarpWidth::W32);
    /// let want = one.reduce(&one.upload(&data).unwrap(), ReduceOp::Sum).unwrap();
    /// assert!(got.into_iter().all(|g| g.unwrap().to_bits() == want.to_bits()));
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `shard` is not the planned length or `out` not one element, before
    /// anything is enqueued (the other ranks' exchange then waits for this one: their
    /// [`Comm::synchronize`] reports `RankLost` after the timeout); a transport or backend
    /// error.
    pub fn reduce_into<T: Element>(
        &self,
        plan: &mut ReducePlan<X, T>,
        shard: &Buf<X, T>,
        out: &mut Buf<X, T>,
    ) -> Result<()> {
        check_len(
            "planned reduce shard (the planned length)",
            plan.len,
            shard.len(),
        )?;
        check_len("reduce output (one element)", 1, out.len())?;
        let b = self.backend();
        let op = plan.op;
        self.x.enqueue(|| match &mut plan.steps {
            Steps::Fast { local } => {
                if !shard.is_empty() {
                    b.reduce_into(shard, op, local)?;
                }
                self.x.all_reduce_native(local, out, op)
            }
            Steps::Canonical(c) => c.run(self, shard, op, out),
        })
    }

    /// Waits for everything this rank enqueued (the planned collectives), giving up with
    /// `RankLost` after the transport's timeout if another rank never ran its part.
    ///
    /// # Errors
    /// `RankLost`; a backend's `Device` error.
    pub fn synchronize(&self) -> Result<()> {
        self.x.wait()
    }

    /// The reproducible reduce's steps. With shard boundaries on multiples of `chunk` =
    /// REDUCE_TILE^L (L >= 1), the partials of level L of the single-device tree are each one
    /// whole chunk's reduce, which one rank holds: no elements move. Otherwise (L = 0) level 1,
    /// the tiles that straddle shards rebuilt from every rank's edge elements.
    fn canonical_steps<T: Element>(&self, layout: &Layout) -> Result<Steps<X, T>> {
        let b = self.backend();
        let (rank, world) = (self.rank(), self.world());
        let aligned = layout.aligned_chunk(REDUCE_TILE);
        let (chunk, edges) = if aligned >= REDUCE_TILE {
            (aligned, None)
        } else {
            (REDUCE_TILE, Some(EdgePlan::new(b, layout, rank)?))
        };
        let start = layout.range(rank).start;
        let owned = layout.owned(rank, chunk);
        let shard_end = layout.range(rank).end;
        // The owned chunks inside the shard (all but possibly a last one that straddles the
        // next shard) are level `levels` of the tree over that stretch: one launch.
        let inside = owned
            .clone()
            .take_while(|&t| layout.tile_range(t, chunk).end <= shard_end)
            .count();
        let local = if inside > 0 {
            let from = layout.tile_range(owned.start, chunk).start - start;
            let to = layout.tile_range(owned.start + inside - 1, chunk).end - start;
            Some(from..to)
        } else {
            None
        };
        // Straddling owned tiles: each rebuilt from the gathered edges into its stretch of
        // `rebuilt`, then reduced alone.
        let mut edges = edges;
        let mut straddling = Vec::new();
        let mut at = 0;
        for t in owned.clone().skip(inside) {
            let e = edges.as_mut().expect("only level-1 tiles straddle shards");
            let len = layout.tile_range(t, chunk).len();
            e.add_tile(layout, t, at);
            straddling.push(at..at + len);
            at += len;
        }
        let counts: Vec<usize> = (0..world).map(|q| layout.owned(q, chunk).len()).collect();
        let cap = counts.iter().copied().max().unwrap_or(0);
        let total: usize = counts.iter().sum();
        let uniform = counts.iter().all(|&c| c == cap);
        Ok(Steps::Canonical(Canonical {
            levels: chunk.ilog(REDUCE_TILE),
            local,
            inside,
            edges: edges
                .map(|e| b.alloc::<T>(at).map(|r| (e, r)))
                .transpose()?,
            straddling,
            send: b.alloc::<T::Acc>(cap)?,
            gathered: b.alloc::<T::Acc>(cap * world)?,
            all: if uniform {
                None
            } else {
                Some(b.alloc::<T::Acc>(total)?)
            },
            counts,
        }))
    }

    /// Every rank's elements of the tiles that straddle shards (skipped when none does).
    pub(crate) fn gather_edges<'a, T: Element>(
        &self,
        layout: &'a Layout,
        tile: usize,
        shard: &Buf<X, T>,
    ) -> Result<Edges<'a, T>> {
        let per_rank = if layout.has_boundary_tiles(tile) {
            let b = self.backend();
            let start = layout.range(self.rank()).start;
            let mut mine = Vec::new();
            for e in layout.edges(self.rank(), tile) {
                let edge = b.slice(shard, e.start - start..e.end - start)?;
                mine.extend(b.download(&edge)?);
            }
            let counts: Vec<usize> = (0..self.world())
                .map(|q| layout.edges(q, tile).iter().map(|e| e.len()).sum())
                .collect();
            self.gather_counted(&mine, &counts)?
        } else {
            vec![vec![]; self.world()]
        };
        Ok(Edges {
            layout,
            tile,
            per_rank,
        })
    }
}

/// A distributed reduce prepared by [`Comm::plan_reduce`] for one shard length, op and mode:
/// the buffers of its exchange, kept between runs.
pub struct ReducePlan<X: Transport, T: Element> {
    op: ReduceOp,
    len: usize,
    steps: Steps<X, T>,
}

impl<X: Transport, T: Element> std::fmt::Debug for ReducePlan<X, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReducePlan")
            .field("op", &self.op)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

enum Steps<X: Transport, T: Element> {
    /// The local reduce (or the identity), then the transport's own allreduce.
    Fast {
        local: Buf<X, T>,
    },
    Canonical(Canonical<X, T>),
}

impl<X: Transport, T: Element> Steps<X, T> {
    /// The run's transport calls once on the plan's own buffers: NCCL connects its peers on a
    /// call's first use, which a stream being captured into a graph does not allow, so the
    /// plan connects them (NCCL's advice: run a collective once before capturing it).
    fn warm_up(&mut self, comm: &Comm<X>, op: ReduceOp) -> Result<()> {
        let (b, x) = (comm.backend(), &comm.x);
        match self {
            Steps::Fast { local } => x.all_reduce_native(local, &mut b.alloc::<T>(1)?, op),
            Steps::Canonical(c) => {
                if let Some((e, _)) = &mut c.edges {
                    x.all_gather(&e.send, &mut e.gathered)?;
                }
                x.all_gather(&c.send, &mut c.gathered)
            }
        }
    }

    /// The most elements one backend call of the run takes.
    fn largest(&self) -> usize {
        match self {
            Steps::Fast { .. } => 1,
            Steps::Canonical(c) => c
                .gathered
                .len()
                .max(c.straddling.iter().map(|r| r.len()).max().unwrap_or(0)),
        }
    }
}

/// The reproducible reduce: this rank's partials of level `levels` (one launch over `local`,
/// then the rebuilt straddling tiles) into `send`, one allgather of `send` (padded to the
/// largest rank's count) into `gathered`, the partials put in tile order (`all`, unless every
/// rank has the same count), and one device reduce of them: the single-device rule, so the
/// bits of the single-device reduce of the whole array. Partials are in the accumulator type
/// (`f32` for the 16-bit floats, rounded once at the end, as the single-device reduce does).
struct Canonical<X: Transport, T: Element> {
    levels: u32,
    /// The stretch of the shard made of whole owned chunks, and how many chunks.
    local: Option<Range<usize>>,
    inside: usize,
    /// The edge exchange and the buffer the straddling tiles are rebuilt in.
    edges: Option<(EdgePlan<X, T>, Buf<X, T>)>,
    /// Where each straddling owned tile lies in the rebuilt buffer.
    straddling: Vec<Range<usize>>,
    send: Buf<X, T::Acc>,
    gathered: Buf<X, T::Acc>,
    all: Option<Buf<X, T::Acc>>,
    /// Partials per rank.
    counts: Vec<usize>,
}

impl<X: Transport, T: Element> Canonical<X, T> {
    fn run(
        &mut self,
        comm: &Comm<X>,
        shard: &Buf<X, T>,
        op: ReduceOp,
        out: &mut Buf<X, T>,
    ) -> Result<()> {
        let (b, x) = (comm.backend(), &comm.x);
        if let Some((e, rebuilt)) = &mut self.edges {
            e.exchange(comm, shard)?;
            for k in 0..self.straddling.len() {
                e.rebuild(b, k, rebuilt)?;
            }
        }
        if let Some(r) = &self.local {
            let part = b.slice(shard, r.clone())?;
            let mut slots = b.slice_mut(&mut self.send, 0..self.inside)?;
            b.reduce_partials_into(&part, op, self.levels, &mut slots)?;
        }
        let skip = self.inside;
        if let Some((_, rebuilt)) = &self.edges {
            for (k, r) in self.straddling.iter().enumerate() {
                let tile = b.slice(rebuilt, r.clone())?;
                let mut slot = b.slice_mut(&mut self.send, skip + k..skip + k + 1)?;
                b.reduce_partials_into(&tile, op, 1, &mut slot)?;
            }
        }
        x.all_gather(&self.send, &mut self.gathered)?;
        let cap = self.send.len();
        let partials = match &mut self.all {
            None => &self.gathered,
            Some(all) => {
                pack_gathered(b, &self.gathered, cap, &self.counts, all)?;
                &*all
            }
        };
        b.reduce_acc_into(partials, op, out)
    }
}

/// The exchange of the elements of tiles that straddle shards, on the device: this rank's
/// edges copied into `send`, one allgather (padded to the largest rank's edges), and for each
/// straddling tile this rank owns the pieces to copy out of `gathered`.
struct EdgePlan<X: Transport, T: Element> {
    /// (stretch of the shard, where it goes in `send`).
    mine: Vec<(Range<usize>, usize)>,
    send: Buf<X, T>,
    gathered: Buf<X, T>,
    /// Per straddling owned tile: (offset in `gathered`, offset in the rebuilt buffer, length).
    pieces: Vec<Vec<(usize, usize, usize)>>,
}

impl<X: Transport, T: Element> EdgePlan<X, T> {
    fn new(b: &X::Backend, layout: &Layout, rank: usize) -> Result<Self> {
        let start = layout.range(rank).start;
        let mut mine = Vec::new();
        let mut at = 0;
        for e in layout.edges(rank, REDUCE_TILE) {
            mine.push((e.start - start..e.end - start, at));
            at += e.len();
        }
        let cap = (0..layout.world())
            .map(|q| layout.edges(q, REDUCE_TILE).iter().map(|e| e.len()).sum())
            .max()
            .unwrap_or(0);
        Ok(EdgePlan {
            mine,
            send: b.alloc::<T>(cap)?,
            gathered: b.alloc::<T>(cap * layout.world())?,
            pieces: Vec::new(),
        })
    }

    /// Tile `t`'s pieces, in index order (as `Edges::rebuild` takes them), into the rebuilt
    /// buffer from `at`.
    fn add_tile(&mut self, layout: &Layout, t: usize, at: usize) {
        let tr = layout.tile_range(t, REDUCE_TILE);
        let cap = self.send.len();
        let mut pieces = Vec::new();
        let mut dst = at;
        for q in 0..layout.world() {
            let mut from = q * cap;
            for e in layout.edges(q, REDUCE_TILE) {
                let (lo, hi) = (e.start.max(tr.start), e.end.min(tr.end));
                if lo < hi {
                    pieces.push((from + lo - e.start, dst, hi - lo));
                    dst += hi - lo;
                }
                from += e.len();
            }
        }
        debug_assert_eq!(
            dst - at,
            tr.len(),
            "every boundary tile is covered by edges"
        );
        self.pieces.push(pieces);
    }

    /// Every rank's edges into `gathered`.
    fn exchange(&mut self, comm: &Comm<X>, shard: &Buf<X, T>) -> Result<()> {
        let b = comm.backend();
        for (r, at) in &self.mine {
            let mut dst = b.slice_mut(&mut self.send, *at..*at + r.len())?;
            b.copy_from(&mut dst, shard, r.start)?;
        }
        comm.x.all_gather(&self.send, &mut self.gathered)
    }

    /// Straddling tile `k` into its stretch of `rebuilt`.
    fn rebuild(&self, b: &X::Backend, k: usize, rebuilt: &mut Buf<X, T>) -> Result<()> {
        for &(src, dst, len) in &self.pieces[k] {
            let mut d = b.slice_mut(rebuilt, dst..dst + len)?;
            b.copy_from(&mut d, &self.gathered, src)?;
        }
        Ok(())
    }
}

/// The one-call reduce's kept plan (`Comm::reduce_cache`).
struct Cached<X: Transport, T: Element> {
    layout: Layout,
    mode: Mode,
    plan: ReducePlan<X, T>,
    out: Buf<X, T>,
}
