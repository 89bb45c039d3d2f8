//! The device steps of the collectives across devices on this backend (wavekit-core's
//! `RawSliceDevice`): copies are slice copies of host memory, the butterfly over rows and the
//! reduce's levels are this backend's own (reduce_rows.rs, reduce_partials.rs). The merge and
//! the scan steps keep the trait's defaults, no kernel (`Ok(None)`): `SliceDevice` sorts
//! again, and scans tile by tile with this backend's scan.

use crate::{CpuBackend, CpuBuffer};
use std::ops::Range;
use wavekit_core::{Backend, DeviceBuffer, Element, RawSliceDevice, ReduceOp, Result, Validated};

impl RawSliceDevice for CpuBackend {
    /// Any number of rows: the butterfly runs on the host.
    const MAX_REDUCE_ROWS: usize = usize::MAX;

    fn raw_copy_range<T: Element>(
        &self,
        _: Validated,
        buf: &CpuBuffer<T>,
        range: Range<usize>,
    ) -> Result<CpuBuffer<T>> {
        self.upload(&buf.data()?[range])
    }

    fn raw_concat<T: Element>(
        &self,
        _: Validated,
        parts: &[&CpuBuffer<T>],
    ) -> Result<CpuBuffer<T>> {
        // Fallible: the parts' total can be more than the host has (OutOfMemory, no abort).
        let mut all = wavekit_core::host::with_capacity(parts.iter().map(|p| p.len()).sum())?;
        for p in parts {
            all.extend_from_slice(p.data()?);
        }
        Ok(CpuBuffer::from_vec(all))
    }

    fn raw_download_strided<T: Element>(
        &self,
        _: Validated,
        buf: &CpuBuffer<T>,
        start: usize,
        stride: usize,
        count: usize,
    ) -> Result<Vec<T>> {
        let v = buf.data()?;
        wavekit_core::host::from_fn(count, |k| v[start + k * stride])
    }

    fn raw_copy_from<T: Element>(
        &self,
        _: Validated,
        dst: &mut CpuBuffer<T>,
        src: &CpuBuffer<T>,
        start: usize,
    ) -> Result<()> {
        let part = &src.data()?[start..start + dst.len()];
        self.write(dst, part)
    }

    fn raw_reduce_rows_in_place<T: Element>(
        &self,
        _: Validated,
        rows: &mut CpuBuffer<T>,
        r: usize,
        dst: usize,
        op: ReduceOp,
    ) -> Result<()> {
        self.reduce_rows(rows, r, dst, op)
    }

    fn raw_reduce_partials_into<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T>,
        op: ReduceOp,
        levels: u32,
        out: &mut CpuBuffer<T::Acc>,
    ) -> Result<()> {
        self.reduce_partials(input, op, levels, out)
    }

    fn raw_reduce_acc_into<T: Element>(
        &self,
        _: Validated,
        input: &CpuBuffer<T::Acc>,
        op: ReduceOp,
        out: &mut CpuBuffer<T>,
    ) -> Result<()> {
        self.reduce_acc(input, op, out)
    }
}
