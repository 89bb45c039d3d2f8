//! What the distributed collectives need from a backend beyond `Collectives`: sub-ranges of
//! device buffers, copied on the device (a GPU never round-trips a shard through the host).

use std::ops::Range;
use wavekit_core::api::{check_scan_steps, check_strided};
use wavekit_core::canonical::SCAN_TILE;
use wavekit_core::{
    Backend, Collectives, DeviceBuffer, Element, ReduceOp, Result, ScanKind, Sort, SortOrder,
    WavekitError,
};
use wavekit_cpu::{CpuBackend, CpuBuffer};

/// Device-side copies between buffers of one backend.
pub trait SliceDevice: Collectives {
    /// A new buffer holding a copy of `buf[range]` (`Backend::slice` borrows instead).
    fn copy_range<T: Element>(
        &self,
        buf: &Self::Buffer<T>,
        range: Range<usize>,
    ) -> Result<Self::Buffer<T>>;
    /// A new buffer holding the parts one after another.
    fn concat<T: Element>(&self, parts: &[&Self::Buffer<T>]) -> Result<Self::Buffer<T>>;
    /// `buf[start + k * stride]` for k in 0..count, read back in one copy where the backend can.
    fn download_strided<T: Element>(
        &self,
        buf: &Self::Buffer<T>,
        start: usize,
        stride: usize,
        count: usize,
    ) -> Result<Vec<T>>;
    /// Overwrites `dst` with `src[start .. start + dst.len()]`.
    fn copy_from<T: Element>(
        &self,
        dst: &mut Self::Buffer<T>,
        src: &Self::Buffer<T>,
        start: usize,
    ) -> Result<()>;
    /// Sizes the backend's workspace for collectives on up to `n` elements of `T`, so that the
    /// planned collectives allocate nothing when they run (what a graph capture needs). The
    /// default has no workspace.
    fn reserve<T: Element>(&self, n: usize) -> Result<()> {
        let _ = n;
        Ok(())
    }

    /// The most rows [`SliceDevice::bfly_rows_in_place`] takes.
    const MAX_BFLY_ROWS: usize;

    /// `rows` holds `r` equal rows; row `dst` becomes, column by column, the canonical
    /// butterfly over the rows (docs/SEMANTICS.md "dist_all_reduce"). `r` is at most
    /// [`SliceDevice::MAX_BFLY_ROWS`].
    fn bfly_rows_in_place<T: Element>(
        &self,
        rows: &mut Self::Buffer<T>,
        r: usize,
        dst: usize,
        op: ReduceOp,
    ) -> Result<()>;

    /// The stable sort of `keys` by `order`, where `keys` is `runs.len()` runs one after
    /// another (run k of `runs[k]` keys) each already sorted stably by `order`: what the sample
    /// sort receives. The default sorts again; a GPU merges the runs.
    fn merge_runs_keys<K: Element>(
        &self,
        keys: &Self::Buffer<K>,
        runs: &[usize],
        order: SortOrder,
    ) -> Result<Self::Buffer<K>> {
        let _ = runs;
        self.sort_keys(keys, order)
    }

    /// [`SliceDevice::merge_runs_keys`] with a value beside each key, moved with it.
    fn merge_runs_pairs<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        runs: &[usize],
        order: SortOrder,
    ) -> Result<(Self::Buffer<K>, Self::Buffer<V>)> {
        let _ = runs;
        self.sort_pairs(keys, values, order)
    }

    /// `out[t]` = the aggregate of tile `t` of `input` (docs/SEMANTICS.md "device_scan",
    /// steps 1-4): what the sharded scan gathers. The default scans tile by tile on the host's
    /// side of the backend; a GPU takes them all in one launch.
    fn scan_aggregates_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()> {
        check_scan_steps::<T>("scan_aggregates", op, input.len(), out.len(), None)?;
        let aggs: Vec<T> = tile_scans(self, input, op)?
            .iter()
            .map(|l| *l.last().expect("tiles are non-empty"))
            .collect();
        self.write(out, &aggs)
    }

    /// The scan of `input` continuing an array whose earlier tiles fold to `carry[0]`
    /// (device_scan step 5 with `X_0 = carry[0]`; exclusive: `output[0] = carry[0]`).
    fn scan_carried_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        output: &mut Self::Buffer<T>,
        op: ReduceOp,
        kind: ScanKind,
        carry: &Self::Buffer<T>,
    ) -> Result<()> {
        check_scan_steps::<T>(
            "scan_carried",
            op,
            input.len(),
            output.len(),
            Some(carry.len()),
        )?;
        let mut x = self.download(carry)?[0];
        let mut out = Vec::with_capacity(input.len());
        for l in tile_scans(self, input, op)? {
            let incl = l.iter().map(|&v| T::combine(op, x, v));
            match kind {
                ScanKind::Inclusive => out.extend(incl),
                ScanKind::Exclusive => {
                    out.push(x);
                    out.extend(incl.take(l.len() - 1));
                }
            }
            x = T::combine(op, x, *l.last().expect("tiles are non-empty"));
        }
        self.write(output, &out)
    }

    /// `out[0]` = the left fold of `input`, in order (the chain of device_scan's tile
    /// prefixes over gathered aggregates).
    fn fold_left_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()> {
        check_scan_steps::<T>("fold_left", op, input.len(), out.len(), None)?;
        let v = self.download(input)?;
        let x = v[1..].iter().fold(v[0], |x, &a| T::combine(op, x, a));
        self.write(out, &[x])
    }

    /// `out[c]` = `reduce` of chunk c of `input` before its rounding, in the accumulator type,
    /// chunks of `REDUCE_TILE^levels` elements (the last may be short): level `levels` of the
    /// device reduce's tree (`CpuBackend::reduce_partials_into`, `GpuBackend::`'s in one
    /// launch).
    fn reduce_partials_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        op: ReduceOp,
        levels: u32,
        out: &mut Self::Buffer<T::Acc>,
    ) -> Result<()>;

    /// `out` (one element) = the reduce of partials of the accumulator type as the tree's
    /// levels above them, rounded to `T` once (`reduce_acc_into` of the backend).
    fn reduce_acc_into<T: Element>(
        &self,
        input: &Self::Buffer<T::Acc>,
        op: ReduceOp,
        out: &mut Self::Buffer<T>,
    ) -> Result<()>;
}

/// The sharded scan's device steps, as the default computes them from the backend's own scan
/// (what `GpuBackend` does in one launch each): tile by tile, each tile's scan alone being its
/// local values `L` (docs/SEMANTICS.md "device_scan").
fn tile_scans<B: Collectives, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    op: ReduceOp,
) -> Result<Vec<Vec<T>>> {
    let mut out = Vec::new();
    for at in (0..input.len()).step_by(SCAN_TILE) {
        let tile = b.slice(input, at..(at + SCAN_TILE).min(input.len()))?;
        let mut l = b.alloc::<T>(tile.len())?;
        b.scan(&tile, &mut l, op, ScanKind::Inclusive)?;
        out.push(b.download(&l)?);
    }
    Ok(out)
}

/// Rank q's `counts[q]` values from its `cap`-element slot of a padded allgather (`gathered`),
/// one rank after another, into `dst` (the sum of `counts` long): the partials or aggregates
/// of every rank listed, in tile order.
pub(crate) fn pack_gathered<B: SliceDevice, T: Element>(
    b: &B,
    gathered: &B::Buffer<T>,
    cap: usize,
    counts: &[usize],
    dst: &mut B::Buffer<T>,
) -> Result<()> {
    let mut at = 0;
    for (q, &c) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
        let mut part = b.slice_mut(dst, at..at + c)?;
        b.copy_from(&mut part, gathered, q * cap)?;
        at += c;
    }
    Ok(())
}

fn check_range(what: &'static str, end: usize, len: usize) -> Result<()> {
    if end > len {
        return Err(WavekitError::IndexOutOfRange {
            what,
            value: end as u64,
            limit: len as u64,
        });
    }
    Ok(())
}

impl SliceDevice for CpuBackend {
    fn reduce_partials_into<T: Element>(
        &self,
        input: &CpuBuffer<T>,
        op: ReduceOp,
        levels: u32,
        out: &mut CpuBuffer<T::Acc>,
    ) -> Result<()> {
        CpuBackend::reduce_partials_into(self, input, op, levels, out)
    }

    fn reduce_acc_into<T: Element>(
        &self,
        input: &CpuBuffer<T::Acc>,
        op: ReduceOp,
        out: &mut CpuBuffer<T>,
    ) -> Result<()> {
        CpuBackend::reduce_acc_into(self, input, op, out)
    }

    const MAX_BFLY_ROWS: usize = usize::MAX;

    fn bfly_rows_in_place<T: Element>(
        &self,
        rows: &mut CpuBuffer<T>,
        r: usize,
        dst: usize,
        op: ReduceOp,
    ) -> Result<()> {
        CpuBackend::bfly_rows_in_place(self, rows, r, dst, op)
    }

    fn copy_range<T: Element>(
        &self,
        buf: &CpuBuffer<T>,
        range: Range<usize>,
    ) -> Result<CpuBuffer<T>> {
        check_range("slice end", range.end, buf.len())?;
        self.upload(&buf.as_slice()[range])
    }

    fn download_strided<T: Element>(
        &self,
        buf: &CpuBuffer<T>,
        start: usize,
        stride: usize,
        count: usize,
    ) -> Result<Vec<T>> {
        check_strided(buf.len(), start, stride, count)?;
        let v = buf.as_slice();
        wavekit_core::host::from_fn(count, |k| v[start + k * stride])
    }

    fn concat<T: Element>(&self, parts: &[&CpuBuffer<T>]) -> Result<CpuBuffer<T>> {
        Ok(CpuBuffer::from_vec(
            parts
                .iter()
                .flat_map(|p| p.as_slice().iter().copied())
                .collect(),
        ))
    }

    fn copy_from<T: Element>(
        &self,
        dst: &mut CpuBuffer<T>,
        src: &CpuBuffer<T>,
        start: usize,
    ) -> Result<()> {
        // Saturating: a start near usize::MAX is an error, not an overflow.
        check_range(
            "copy source end",
            start.saturating_add(dst.len()),
            src.len(),
        )?;
        let part = &src.as_slice()[start..start + dst.len()];
        self.write(dst, part)
    }
}

#[cfg(any(feature = "nccl", feature = "rccl"))]
mod gpu {
    use super::*;
    use wavekit_gpu::{GpuBackend, GpuBuffer, GpuRuntime};

    impl<R: GpuRuntime> SliceDevice for GpuBackend<R> {
        const MAX_BFLY_ROWS: usize = wavekit_gpu::MAX_BFLY_ROWS;

        fn reserve<T: Element>(&self, n: usize) -> Result<()> {
            GpuBackend::reserve::<T>(self, n)
        }

        fn bfly_rows_in_place<T: Element>(
            &self,
            rows: &mut GpuBuffer<T, R>,
            r: usize,
            dst: usize,
            op: ReduceOp,
        ) -> Result<()> {
            GpuBackend::bfly_rows_in_place(self, rows, r, dst, op)
        }

        fn copy_range<T: Element>(
            &self,
            buf: &GpuBuffer<T, R>,
            range: Range<usize>,
        ) -> Result<GpuBuffer<T, R>> {
            check_range("slice end", range.end, buf.len())?;
            let part = self.slice(buf, range)?;
            let mut out = self.alloc::<T>(part.len())?;
            self.copy(&part, &mut out)?;
            Ok(out)
        }

        fn download_strided<T: Element>(
            &self,
            buf: &GpuBuffer<T, R>,
            start: usize,
            stride: usize,
            count: usize,
        ) -> Result<Vec<T>> {
            GpuBackend::download_strided(self, buf, start, stride, count)
        }

        fn concat<T: Element>(&self, parts: &[&GpuBuffer<T, R>]) -> Result<GpuBuffer<T, R>> {
            let mut out = self.alloc::<T>(parts.iter().map(|p| p.len()).sum())?;
            let mut at = 0;
            for p in parts.iter().filter(|p| !p.is_empty()) {
                let mut part = self.slice_mut(&mut out, at..at + p.len())?;
                self.copy(p, &mut part)?;
                at += p.len();
            }
            Ok(out)
        }

        fn copy_from<T: Element>(
            &self,
            dst: &mut GpuBuffer<T, R>,
            src: &GpuBuffer<T, R>,
            start: usize,
        ) -> Result<()> {
            check_range(
                "copy source end",
                start.saturating_add(dst.len()),
                src.len(),
            )?;
            let part = self.slice(src, start..start + dst.len())?;
            self.copy(&part, dst)
        }

        fn scan_aggregates_into<T: Element>(
            &self,
            input: &GpuBuffer<T, R>,
            op: ReduceOp,
            out: &mut GpuBuffer<T, R>,
        ) -> Result<()> {
            GpuBackend::scan_aggregates_into(self, input, op, out)
        }

        fn scan_carried_into<T: Element>(
            &self,
            input: &GpuBuffer<T, R>,
            output: &mut GpuBuffer<T, R>,
            op: ReduceOp,
            kind: ScanKind,
            carry: &GpuBuffer<T, R>,
        ) -> Result<()> {
            GpuBackend::scan_carried_into(self, input, output, op, kind, carry)
        }

        fn fold_left_into<T: Element>(
            &self,
            input: &GpuBuffer<T, R>,
            op: ReduceOp,
            out: &mut GpuBuffer<T, R>,
        ) -> Result<()> {
            GpuBackend::fold_left_into(self, input, op, out)
        }

        fn reduce_partials_into<T: Element>(
            &self,
            input: &GpuBuffer<T, R>,
            op: ReduceOp,
            levels: u32,
            out: &mut GpuBuffer<T::Acc, R>,
        ) -> Result<()> {
            GpuBackend::reduce_partials_into(self, input, op, levels, out)
        }

        fn reduce_acc_into<T: Element>(
            &self,
            input: &GpuBuffer<T::Acc, R>,
            op: ReduceOp,
            out: &mut GpuBuffer<T, R>,
        ) -> Result<()> {
            GpuBackend::reduce_acc_into(self, input, op, out)
        }

        fn merge_runs_keys<K: Element>(
            &self,
            keys: &GpuBuffer<K, R>,
            runs: &[usize],
            order: SortOrder,
        ) -> Result<GpuBuffer<K, R>> {
            if runs.len() > wavekit_gpu::MAX_MERGE_RUNS {
                return self.sort_keys(keys, order);
            }
            GpuBackend::merge_runs_keys(self, keys, runs, order)
        }

        fn merge_runs_pairs<K: Element, V: Element>(
            &self,
            keys: &GpuBuffer<K, R>,
            values: &GpuBuffer<V, R>,
            runs: &[usize],
            order: SortOrder,
        ) -> Result<(GpuBuffer<K, R>, GpuBuffer<V, R>)> {
            if runs.len() > wavekit_gpu::MAX_MERGE_RUNS {
                return self.sort_pairs(keys, values, order);
            }
            GpuBackend::merge_runs_pairs(self, keys, values, runs, order)
        }
    }
}
