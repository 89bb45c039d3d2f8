//! Inclusive and exclusive scan of a sharded array (docs/SEMANTICS.md, "dist_scan"): each rank
//! scans every device-scan tile it touches on its own (rebuilding the tiles that straddle
//! shards), the owners' tile aggregates travel in one allgather, and every rank folds them
//! left to right into the tile prefixes `X_i` exactly as the single-device scan does. Each
//! output element is then `op(X_i, L_e)`: the single-device result, bit for bit.

use crate::device::pack_gathered;
use crate::handshake::{Call, Header, Lengths};
use crate::layout::Layout;
use crate::{Buf, Comm, Mode, SliceDevice, Transport, check_len};
use wavekit_core::canonical::{SCAN_HALF_GROUP, SCAN_TILE};
use wavekit_core::{Backend, Collectives, DeviceBuffer, Element, ReduceOp, Result, ScanKind};

impl<X: Transport> Comm<X> {
    /// Scans the sharded array; `output` is this rank's shard of the result (same length as
    /// `shard`). Scans are always reproducible: the canonical order costs one small allgather.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, DeviceBuffer, ReduceOp, ScanKind};
    /// use wavekit_dist::{Comm, Layout, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let data: Vec<f32> = (0..10_000).map(|i| 0.1 * i as f32).collect();
    /// let layout = Layout::from_lens(&[4095, 2, 5903]);
    /// let parts = ThreadWorld::<CpuBackend>::run(3, |r| {
    ///     let comm = Comm::new(r);
    ///     let b = comm.backend();
    ///     let shard = b.upload(&data[layout.range(comm.rank())]).unwrap();
    ///     let mut out = b.alloc::<f32>(shard.len()).unwrap();
    ///     comm.scan(&shard, &mut out, ReduceOp::Sum, ScanKind::Inclusive).unwrap();
    ///     b.download(&out).unwrap()
    /// });
    /// let got: Vec<f32> = parts.into_iter().flat_map(|p| p.unwrap()).collect();
    /// let one = CpuBackend::new(wavekit_core::WarpWidth::W32);
    /// let mut want = one.alloc::<f32>(data.len()).unwrap();
    /// one.scan(&one.upload(&data).unwrap(), &mut want, ReduceOp::Sum, ScanKind::Inclusive).unwrap();
    /// assert_eq!(got, one.download(&want).unwrap());
    /// ```
    pub fn scan<T: Element>(
        &self,
        shard: &Buf<X, T>,
        output: &mut Buf<X, T>,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<()> {
        // The output's length is checked in the handshake: a wrong one fails every rank.
        let output_ok = check_len(
            "distributed scan output (the rank's shard)",
            shard.len(),
            output.len(),
        );
        let mut plan = self.scan_plan(shard.len(), op, kind, false, output_ok)?;
        match plan.device {
            // Queued, then one wait under the transport's watchdog.
            Some(_) => self.x.batch(|| self.scan_into(&mut plan, shard, output)),
            // Its reads wait for every transport call themselves.
            None => self.scan_into(&mut plan, shard, output),
        }
    }

    /// Prepares [`Comm::scan_into`] for shards of `len` elements on this rank: the handshake,
    /// the layout, the exchange's buffers and the backend's workspace, once.
    ///
    /// # Errors
    /// As [`Comm::scan`]: `UnsupportedOp`, `RankMismatch`, `RankLost`.
    pub fn plan_scan<T: Element>(
        &self,
        len: usize,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<ScanPlan<X, T>> {
        self.scan_plan(len, op, kind, true, Ok(()))
    }

    /// `capture_ready`: the run's allgather made once (NCCL connects on first use); `local`:
    /// the caller's own check of its other arguments, for the handshake.
    fn scan_plan<T: Element>(
        &self,
        len: usize,
        op: ReduceOp,
        kind: ScanKind,
        capture_ready: bool,
        local: Result<()>,
    ) -> Result<ScanPlan<X, T>> {
        let layout = self.handshake(
            Header {
                call: Call::Scan,
                kind: T::KIND,
                args: [
                    op as u64,
                    u64::from(kind == ScanKind::Exclusive),
                    Mode::Reproducible as u64,
                    0,
                ],
                len,
            },
            Lengths::Sharded,
            op.check::<T>().and(local),
        )?;
        let b = self.backend();
        b.reserve::<T>(len)?;
        // The device steps carry one prefix a tile; the 16-bit floats' prefixes advance in
        // groups of tiles (SEMANTICS "device_scan" step 5), which only the host path folds.
        let device = if !T::KIND.is_half() && layout.aligned_chunk(SCAN_TILE) >= SCAN_TILE {
            let mut d = DeviceScan::new(b, &layout, self.rank())?;
            if capture_ready {
                self.x
                    .batch(|| self.x.all_gather(&d.send, &mut d.gathered))?;
            }
            Some(d)
        } else {
            None
        };
        Ok(ScanPlan {
            op,
            kind,
            len,
            layout,
            device,
        })
    }

    /// Runs the planned scan of `shard` into `output` (this rank's shard of the result). With
    /// every shard boundary on a multiple of `SCAN_TILE` (4096; even shards of such lengths,
    /// say) it only enqueues device work on the backend's stream, graph-capturable as
    /// [`Comm::reduce_into`]: this rank's tile aggregates (one launch), one allgather of them,
    /// the left fold of those before its first tile (one GPU thread for float Sum and
    /// Product, else one block), and the scan of the shard from that prefix (one launch); the
    /// last rank computes no aggregates (none folds them), and a lone rank runs the device
    /// scan alone. Otherwise the tiles cut by shards are rebuilt and
    /// scanned through host memory, and the call waits.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, DeviceBuffer, ReduceOp, ScanKind};
    /// use wavekit_dist::{Comm, Layout, ThreadWorld, Transport};
    /// use wavekit_cpu::CpuBackend;
    /// let data: Vec<f32> = (0..12_288).map(|i| 0.1 * i as f32).collect();
    /// let layout = Layout::from_lens(&[4096, 8192]);
    /// let parts = ThreadWorld::<CpuBackend>::run(2, |r| {
    ///     let comm = Comm::new(r);
    ///     let b = comm.backend();
    ///     let shard = b.upload(&data[layout.range(comm.rank())]).unwrap();
    ///     let mut plan = comm
    ///         .plan_scan::<f32>(shard.len(), ReduceOp::Sum, ScanKind::Inclusive)
    ///         .unwrap();
    ///     let mut out = b.alloc::<f32>(shard.len()).unwrap();
    ///     comm.scan_into(&mut plan, &shard, &mut out).unwrap();
    ///     comm.synchronize().unwrap();
    ///     b.download(&out).unwrap()
    /// });
    /// let got: Vec<f32> = parts.into_iter().flat_map(|p| p.unwrap()).collect();
    /// let one = CpuBackend::new(wavekit_core::WarpWidth::W32);
    /// let mut want = one.alloc::<f32>(data.len()).unwrap();
    /// one.scan(&one.upload(&data).unwrap(), &mut want, ReduceOp::Sum, ScanKind::Inclusive).unwrap();
    /// assert_eq!(got, one.download(&want).unwrap());
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `shard` is not the planned length or `output` not the shard's,
    /// before any work; a transport or backend error.
    pub fn scan_into<T: Element>(
        &self,
        plan: &mut ScanPlan<X, T>,
        shard: &Buf<X, T>,
        output: &mut Buf<X, T>,
    ) -> Result<()> {
        check_len(
            "planned scan shard (the planned length)",
            plan.len,
            shard.len(),
        )?;
        check_len(
            "distributed scan output (the rank's shard)",
            shard.len(),
            output.len(),
        )?;
        let (op, kind) = (plan.op, plan.kind);
        match &mut plan.device {
            Some(d) => self.x.enqueue(|| d.run(self, shard, output, op, kind)),
            None => self.scan_host(&plan.layout, shard, output, op, kind),
        }
    }

    /// The scan of a layout whose shards cut tiles (and of the 16-bit floats): every touched
    /// tile scanned on its own, through host memory, in the accumulator type (`f32` for the
    /// 16-bit floats, each output rounded once), the tile prefixes folded as the single-device
    /// scan folds them: one tile at a time, or `SCAN_HALF_GROUP` for the 16-bit floats.
    fn scan_host<T: Element>(
        &self,
        layout: &Layout,
        shard: &Buf<X, T>,
        output: &mut Buf<X, T>,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<()> {
        let b = self.backend();
        let rank = self.rank();
        let local = b.download(shard)?;
        let edges = self.gather_edges(layout, SCAN_TILE, shard)?;
        let touching = layout.touching(rank, SCAN_TILE);
        // Tile-local inclusive scans L of every tile this rank touches.
        let mut scanned: Vec<Vec<T::Acc>> = Vec::with_capacity(touching.len());
        for t in touching.clone() {
            let wide: Vec<T::Acc> = edges
                .tile_data(t, rank, &local)
                .into_iter()
                .map(Element::to_acc)
                .collect();
            let tile = b.upload(&wide)?;
            let mut l = b.alloc::<T::Acc>(tile.len())?;
            b.scan(&tile, &mut l, op, ScanKind::Inclusive)?;
            scanned.push(b.download(&l)?);
        }
        let owned = layout.owned(rank, SCAN_TILE);
        let aggregates: Vec<T::Acc> = owned
            .clone()
            .map(|t| {
                *scanned[t - touching.start]
                    .last()
                    .expect("tiles are non-empty")
            })
            .collect();
        let counts: Vec<usize> = (0..self.world())
            .map(|q| layout.owned(q, SCAN_TILE).len())
            .collect();
        let all = self.gather_counted(&aggregates, &counts)?.concat();
        let prefix = tile_prefixes::<T>(&all, op, touching.clone());
        let f = |a: T::Acc, b: T::Acc| T::Acc::combine(op, a, b);
        let incl = |p: usize| {
            let t = p / SCAN_TILE;
            let l = scanned[t - touching.start][p - t * SCAN_TILE];
            T::from_acc(prefix[t - touching.start].map_or(l, |x| f(x, l)))
        };
        let out: Vec<T> = layout
            .range(rank)
            .map(|p| match kind {
                ScanKind::Inclusive => incl(p),
                ScanKind::Exclusive if p == 0 => T::identity(op),
                // A tile's first position is that tile's X (SEMANTICS "device_scan" step 6).
                ScanKind::Exclusive if p % SCAN_TILE == 0 => T::from_acc(
                    prefix[p / SCAN_TILE - touching.start].expect("tile > 0 has a prefix"),
                ),
                ScanKind::Exclusive => incl(p - 1),
            })
            .collect();
        if !out.is_empty() {
            b.write(output, &out)?;
        }
        Ok(())
    }
}

/// The prefixes X_t of the tiles in `want` (None for tile 0) from every tile's aggregate, in
/// tile order, as the single-device scan folds them (SEMANTICS "device_scan" step 5): groups of
/// G tiles (`SCAN_HALF_GROUP` for the 16-bit floats, 1 otherwise), `Y_{q+1} = op(Y_q, S_q)`
/// with `S_q` the left fold of group q's aggregates, and tile `qG + r` gets `op(Y_q, P_r)`,
/// `P_r` the left fold of the group's first r aggregates. With G = 1, the left fold of every
/// aggregate before the tile.
fn tile_prefixes<T: Element>(
    all: &[T::Acc],
    op: ReduceOp,
    want: std::ops::Range<usize>,
) -> Vec<Option<T::Acc>> {
    let group = if T::KIND.is_half() {
        SCAN_HALF_GROUP
    } else {
        1
    };
    let join = |a: Option<T::Acc>, b: Option<T::Acc>| match (a, b) {
        (Some(a), Some(b)) => Some(T::Acc::combine(op, a, b)),
        (a, b) => a.or(b),
    };
    let (mut y, mut p) = (None, None);
    let mut out = Vec::with_capacity(want.len());
    for (t, &a) in all.iter().enumerate().take(want.end) {
        if t >= want.start {
            out.push(join(y, p));
        }
        p = join(p, Some(a));
        if t % group == group - 1 {
            y = join(y, p);
            p = None;
        }
    }
    out
}

/// A distributed scan prepared by [`Comm::plan_scan`] for one shard length, op and kind.
pub struct ScanPlan<X: Transport, T: Element> {
    op: ReduceOp,
    kind: ScanKind,
    len: usize,
    layout: Layout,
    /// The device steps, when every shard boundary is a multiple of `SCAN_TILE`.
    device: Option<DeviceScan<X, T>>,
}

impl<X: Transport, T: Element> std::fmt::Debug for ScanPlan<X, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanPlan")
            .field("op", &self.op)
            .field("kind", &self.kind)
            .field("len", &self.len)
            .field("on_device", &self.device.is_some())
            .finish_non_exhaustive()
    }
}

/// The scan of tile-aligned shards on the device: this rank's `tiles` aggregates into `send`,
/// every rank's gathered (padded to the largest count), those of the `before` tiles of the
/// ranks below this one put in order (`before_buf`, unless they already are) and folded into
/// `carry`, and the shard scanned from it.
struct DeviceScan<X: Transport, T: Element> {
    tiles: usize,
    /// The layout's last rank (alone when no rank is below it either).
    last: bool,
    before: usize,
    /// Tiles of each rank below this one (the plan's rank, whatever communicator runs it).
    below: Vec<usize>,
    send: Buf<X, T>,
    gathered: Buf<X, T>,
    before_buf: Option<Buf<X, T>>,
    carry: Buf<X, T>,
}

impl<X: Transport, T: Element> DeviceScan<X, T> {
    fn new(b: &X::Backend, layout: &Layout, rank: usize) -> Result<Self> {
        let counts: Vec<usize> = (0..layout.world())
            .map(|q| layout.range(q).len().div_ceil(SCAN_TILE))
            .collect();
        let cap = counts.iter().copied().max().unwrap_or(0).max(1);
        let before: usize = counts[..rank].iter().sum();
        // The ranks below this one, in order, are contiguous in the gathered buffer when each
        // holds `cap` tiles (or none is below).
        let contiguous = counts[..rank].iter().all(|&c| c == cap);
        Ok(DeviceScan {
            tiles: counts[rank],
            last: rank + 1 == layout.world(),
            before,
            send: b.alloc::<T>(cap)?,
            gathered: b.alloc::<T>(cap * layout.world())?,
            before_buf: if contiguous || before == 0 {
                None
            } else {
                Some(b.alloc::<T>(before)?)
            },
            carry: b.alloc::<T>(1)?,
            below: counts[..rank].to_vec(),
        })
    }

    fn run(
        &mut self,
        comm: &Comm<X>,
        shard: &Buf<X, T>,
        output: &mut Buf<X, T>,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<()> {
        let b = comm.backend();
        // A lone rank is the device scan: no aggregates, no exchange.
        if self.last && self.below.is_empty() {
            return if self.tiles > 0 {
                b.scan(shard, output, op, kind)
            } else {
                Ok(())
            };
        }
        // No rank folds the last rank's aggregates (its tiles come before none): it sends its
        // slot unwritten.
        if self.tiles > 0 && !self.last {
            let mut mine = b.slice_mut(&mut self.send, 0..self.tiles)?;
            b.scan_aggregates_into(shard, op, &mut mine)?;
        }
        comm.x.all_gather(&self.send, &mut self.gathered)?;
        if self.tiles == 0 {
            return Ok(());
        }
        if self.before == 0 {
            return b.scan(shard, output, op, kind);
        }
        let cap = self.send.len();
        let before = match &mut self.before_buf {
            None => b.slice(&self.gathered, 0..self.before)?,
            Some(buf) => {
                pack_gathered(b, &self.gathered, cap, &self.below, buf)?;
                b.slice(buf, 0..self.before)?
            }
        };
        b.fold_left_into(&before, op, &mut self.carry)?;
        b.scan_carried_into(shard, output, op, kind, &self.carry)
    }
}
