//! Reduce of a sharded array to one value (docs/SEMANTICS.md, "dist_reduce"): each rank
//! computes the canonical partials of the device-reduce tiles it owns (rebuilding the tiles
//! that straddle shards), the partials travel in one allgather, and every rank reduces them in
//! tile order by the single-device rule. The result is the single-device `reduce` of the whole
//! array, bit for bit, whatever the rank count and the shard split.

use crate::handshake::{Call, EVERY_RANK, Header, Lengths};
use crate::layout::{Edges, Layout};
use crate::{Buf, Comm, Mode, SliceDevice, Transport};
use wavekit_core::canonical::REDUCE_TILE;
use wavekit_core::{Backend, Collectives, DeviceBuffer, Element, ReduceOp, Result, WavekitError};
use wavekit_cpu::CpuBackend;

impl<X: Transport> Comm<X> {
    /// The reduction of the whole sharded array, on every rank. `shard` is this rank's part
    /// (it may be empty; the whole array may not).
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, ReduceOp};
    /// use wavekit_dist::{Comm, Layout, Mode, ThreadWorld, Transport};
    /// let data: Vec<f64> = (0..9000).map(|i| 1.0 / (1.0 + i as f64)).collect();
    /// let layout = Layout::from_lens(&[100, 0, 8000, 900]);
    /// let got = ThreadWorld::run(4, |r| {
    ///     let comm = Comm::new(r);
    ///     let shard = comm.backend().upload(&data[layout.range(comm.rank())]).unwrap();
    ///     comm.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible).unwrap()
    /// });
    /// let one = wavekit_cpu::CpuBackend::new(wavekit_core::WarpWidth::W32);
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

    /// The reduce, with `root` in the handshake (`None`: every rank gets the value).
    fn reduce_to<T: Element>(
        &self,
        shard: &Buf<X, T>,
        op: ReduceOp,
        mode: Mode,
        root: Option<usize>,
    ) -> Result<T> {
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
                len: shard.len(),
            },
            Lengths::Sharded,
            local,
        )?;
        if layout.total() == 0 {
            return Err(WavekitError::EmptyInput {
                what: "distributed reduce input (every shard)",
            });
        }
        match mode {
            Mode::Fast => self.reduce_fast(shard, op),
            Mode::Reproducible => self.reduce_canonical(shard, op, &layout),
        }
    }

    fn reduce_fast<T: Element>(&self, shard: &Buf<X, T>, op: ReduceOp) -> Result<T> {
        let b = self.backend();
        let local = if shard.is_empty() {
            T::identity(op)
        } else {
            b.reduce(shard, op)?
        };
        let send = b.upload(&[local])?;
        let mut recv = b.alloc::<T>(1)?;
        self.x.all_reduce_native(&send, &mut recv, op)?;
        Ok(b.download(&recv)?[0])
    }

    fn reduce_canonical<T: Element>(
        &self,
        shard: &Buf<X, T>,
        op: ReduceOp,
        layout: &Layout,
    ) -> Result<T> {
        let b = self.backend();
        let rank = self.rank();
        let start = layout.range(rank).start;
        // With shard boundaries on multiples of `chunk` = REDUCE_TILE^L (L ≥ 1), the partials
        // of level L of the single-device tree are each one whole chunk's reduce, which one
        // rank holds: no elements move. Otherwise (L = 0) level 1 with rebuilt boundary tiles.
        let chunk = layout.aligned_chunk(REDUCE_TILE);
        let (chunk, edges) = if chunk >= REDUCE_TILE {
            (chunk, None)
        } else {
            (
                REDUCE_TILE,
                Some(self.gather_edges(layout, REDUCE_TILE, shard)?),
            )
        };
        // The owned chunks inside the shard (all but possibly a last one that straddles the
        // next shard) are level `levels` of the tree over that stretch of the shard: one
        // launch gives all their partials, without a copy. A straddling tile is rebuilt and
        // reduced alone. One download collects them.
        let owned = layout.owned(rank, chunk);
        let shard_end = layout.range(rank).end;
        let inside = owned
            .clone()
            .take_while(|&t| layout.tile_range(t, chunk).end <= shard_end)
            .count();
        let mut slots = b.alloc::<T>(owned.len())?;
        if inside > 0 {
            let from = layout.tile_range(owned.start, chunk).start - start;
            let to = layout.tile_range(owned.start + inside - 1, chunk).end - start;
            let levels = chunk.ilog(REDUCE_TILE);
            let part = b.slice(shard, from..to)?;
            let mut out = b.slice_mut(&mut slots, 0..inside)?;
            b.reduce_partials_into(&part, op, levels, &mut out)?;
        }
        // Rebuilt boundary tiles stay alive until the download, after their reduces ran.
        let mut rebuilt = Vec::new();
        for (k, t) in owned.enumerate().skip(inside) {
            let edges = edges.as_ref().expect("only level-1 tiles straddle shards");
            rebuilt.push(b.upload(&edges.rebuild(t))?);
            let part = rebuilt.last().expect("just pushed");
            let mut slot = b.slice_mut(&mut slots, k..k + 1)?;
            b.reduce_into(part, op, &mut slot)?;
        }
        let partials = b.download(&slots)?;
        drop(rebuilt);
        let counts: Vec<usize> = (0..self.world())
            .map(|q| layout.owned(q, chunk).len())
            .collect();
        let all: Vec<T> = self.gather_counted(&partials, &counts)?.concat();
        match all.as_slice() {
            [one] => Ok(*one),
            // The few partials are folded on the host: every backend's reduce gives the same
            // bits (the conformance suite's promise), and this skips an upload and a launch.
            _ => {
                let cpu = CpuBackend::new(b.warp_width());
                cpu.reduce(&cpu.view(&all), op)
            }
        }
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
