//! Inclusive and exclusive scan of a sharded array (docs/SEMANTICS.md, "dist_scan"): each rank
//! scans every device-scan tile it touches on its own (rebuilding the tiles that straddle
//! shards), the owners' tile aggregates travel in one allgather, and every rank folds them
//! left to right into the tile prefixes `X_i` exactly as the single-device scan does. Each
//! output element is then `op(X_i, L_e)`: the single-device result, bit for bit.

use crate::handshake::{Call, Header, Lengths};
use crate::{Buf, Comm, Mode, Transport, check_len};
use wavekit_core::canonical::SCAN_TILE;
use wavekit_core::{Backend, Collectives, DeviceBuffer, Element, ReduceOp, Result, ScanKind};

impl<X: Transport> Comm<X> {
    /// Scans the sharded array; `output` is this rank's shard of the result (same length as
    /// `shard`). Scans are always reproducible: the canonical order costs one small allgather.
    ///
    /// ```
    /// use wavekit_core::{Backend, Collectives, DeviceBuffer, ReduceOp, ScanKind};
    /// use wavekit_dist::{Comm, Layout, ThreadWorld, Transport};
    /// let data: Vec<f32> = (0..10_000).map(|i| 0.1 * i as f32).collect();
    /// let layout = Layout::from_lens(&[4095, 2, 5903]);
    /// let parts = ThreadWorld::run(3, |r| {
    ///     let comm = Comm::new(r);
    ///     let b = comm.backend();
    ///     let shard = b.upload(&data[layout.range(comm.rank())]).unwrap();
    ///     let mut out = b.alloc::<f32>(shard.len()).unwrap();
    ///     comm.scan(&shard, &mut out, ReduceOp::Sum, ScanKind::Inclusive).unwrap();
    ///     b.download(&out).unwrap()
    /// });
    /// let got: Vec<f32> = parts.into_iter().flat_map(|p| p.unwrap()).collect();
    /// let one = wavekit_cpu::CpuBackend::new(wavekit_core::WarpWidth::W32);
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
        let local_check = op.check::<T>().and_then(|()| {
            check_len(
                "distributed scan output (the rank's shard)",
                shard.len(),
                output.len(),
            )
        });
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
                len: shard.len(),
            },
            Lengths::Sharded,
            local_check,
        )?;
        let b = self.backend();
        let rank = self.rank();
        let local = b.download(shard)?;
        let edges = self.gather_edges(&layout, SCAN_TILE, shard)?;
        let touching = layout.touching(rank, SCAN_TILE);
        // Tile-local inclusive scans L of every tile this rank touches.
        let mut scanned = Vec::with_capacity(touching.len());
        for t in touching.clone() {
            let tile = b.upload(&edges.tile_data(t, rank, &local))?;
            let mut l = b.alloc::<T>(tile.len())?;
            b.scan(&tile, &mut l, op, ScanKind::Inclusive)?;
            scanned.push(b.download(&l)?);
        }
        let owned = layout.owned(rank, SCAN_TILE);
        let aggregates: Vec<T> = owned
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
        // X_t for the touching tiles: the left fold of the aggregates before them.
        let mut prefix = Vec::with_capacity(touching.len());
        let mut x: Option<T> = None;
        for (t, &a) in all.iter().enumerate().take(touching.end) {
            if t >= touching.start {
                prefix.push(x);
            }
            x = Some(x.map_or(a, |x| T::combine(op, x, a)));
        }
        let incl = |p: usize| {
            let t = p / SCAN_TILE;
            let l = scanned[t - touching.start][p - t * SCAN_TILE];
            prefix[t - touching.start].map_or(l, |x| T::combine(op, x, l))
        };
        let out: Vec<T> = layout
            .range(rank)
            .map(|p| match kind {
                ScanKind::Inclusive => incl(p),
                ScanKind::Exclusive if p == 0 => T::identity(op),
                // The inclusive value at the end of the previous tile is that tile's X.
                ScanKind::Exclusive if p % SCAN_TILE == 0 => {
                    prefix[p / SCAN_TILE - touching.start].expect("tile > 0 has a prefix")
                }
                ScanKind::Exclusive => incl(p - 1),
            })
            .collect();
        if !out.is_empty() {
            b.write(output, &out)?;
        }
        Ok(())
    }
}
