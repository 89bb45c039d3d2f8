//! Reduce and scan by key ([`ByKey`]): `reduce_by_key` and `scan_by_key` over runs of equal
//! keys (docs/SEMANTICS.md "by_key").

use super::check_len;
use crate::backend::{Backend, DeviceBuffer, ScanKind};
use crate::element::Element;
use crate::error::Result;
use crate::raw::{ByKeyOut, RawBackend, Validated};
use crate::vocab::ReduceOp;

/// What [`ByKey::reduce_by_key`] returns: each run's key and its values reduced.
pub struct ReducedByKey<B: Backend, K: Element, V: Element> {
    /// The first key of each run in `keys[..len]` (the buffer is the input's length).
    pub keys: B::Buffer<K>,
    /// Each run's values reduced in `values[..len]` (the input's length).
    pub values: B::Buffer<V>,
    /// The number of runs.
    pub len: usize,
}

impl<B: Backend, K: Element, V: Element> std::fmt::Debug for ReducedByKey<B, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReducedByKey")
            .field("keys", &self.keys)
            .field("values", &self.values)
            .field("len", &self.len)
            .finish()
    }
}

/// Reduce and scan **by key**: the values of each run of equal consecutive keys (runs as in
/// [`Runs`](super::Runs): `==`, so `-0.0` and `+0.0` share a run and a NaN key is a run of its
/// own) are reduced or scanned on their own, as CUB's `DeviceReduce::ReduceByKey` and
/// `DeviceScan::InclusiveScanByKey` / `ExclusiveScanByKey` do. Every op and element type of
/// [`scan`](super::Collectives::scan) is accepted; floats combine in one documented order (the
/// device scan's tiles with a segmented operator, docs/SEMANTICS.md "by_key"), so every backend
/// and warp width gives the same bits. The `_into` forms only enqueue on a GPU and allocate
/// nothing in steady state.
pub trait ByKey: RawBackend {
    /// [`scan_by_key_into`](Self::scan_by_key_into) into a new buffer.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let keys = cpu.upload(&[1u32, 1, 1, 4, 4, 1])?;
    /// let vals = cpu.upload(&[1i32, 2, 3, 10, 20, 5])?;
    /// let incl = cpu.scan_by_key(&keys, &vals, ReduceOp::Sum, ScanKind::Inclusive)?;
    /// assert_eq!(cpu.download(&incl)?, [1, 3, 6, 10, 30, 5]);
    /// let excl = cpu.scan_by_key(&keys, &vals, ReduceOp::Sum, ScanKind::Exclusive)?;
    /// assert_eq!(cpu.download(&excl)?, [0, 1, 3, 0, 10, 0]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`scan_by_key_into`](Self::scan_by_key_into), and `OutOfMemory`.
    fn scan_by_key<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<Self::Buffer<V>> {
        op.check::<V>()?;
        check_len("values (one per key)", keys.len(), values.len())?;
        let mut out = self.alloc::<V>(values.len())?;
        self.scan_by_key_into(keys, values, &mut out, op, kind)?;
        Ok(out)
    }

    /// Scans each run's values on its own into `out` (the keys' length): inclusive, or
    /// exclusive with the op's identity at each run's first position. An empty input writes
    /// nothing.
    ///
    /// ```
    /// use wavekit_core::{Backend, ByKey, ReduceOp, ScanKind, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W64);
    /// let keys = b.upload(&[0.0f32, -0.0, 2.0, 2.0])?; // -0.0 == 0.0: one run
    /// let vals = b.upload(&[3.0f64, 4.0, 1.0, 7.0])?;
    /// let mut out = b.alloc::<f64>(4)?;
    /// b.scan_by_key_into(&keys, &vals, &mut out, ReduceOp::Max, ScanKind::Inclusive)?;
    /// assert_eq!(b.download(&out)?, [3.0, 4.0, 1.0, 7.0]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp` for a bitwise op on floats; `LengthMismatch` when `values` or `out` is
    /// not the keys' length; `ForeignBuffer`; a backend's `Device` error. Nothing is written
    /// on error.
    fn scan_by_key_into<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        out: &mut Self::Buffer<V>,
        op: ReduceOp,
        kind: ScanKind,
    ) -> Result<()> {
        op.check::<V>()?;
        check_len("values (one per key)", keys.len(), values.len())?;
        check_len(
            "scan-by-key output (the keys' length)",
            keys.len(),
            out.len(),
        )?;
        if keys.is_empty() {
            return Ok(());
        }
        let out = ByKeyOut::Scan { out, kind };
        self.raw_by_key(Validated::new(), keys, values, op, out)
    }

    /// [`reduce_by_key_into`](Self::reduce_by_key_into) into new buffers; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let keys = cpu.upload(&[7u64, 7, 7, 2, 7])?;
    /// let vals = cpu.upload(&[1.5f32, 2.0, 0.5, 9.0, 1.0])?;
    /// let r = cpu.reduce_by_key(&keys, &vals, ReduceOp::Sum)?;
    /// assert_eq!(cpu.download(&r.keys)?[..r.len], [7, 2, 7]);
    /// assert_eq!(cpu.download(&r.values)?[..r.len], [4.0, 9.0, 1.0]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`reduce_by_key_into`](Self::reduce_by_key_into), and `OutOfMemory`.
    fn reduce_by_key<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        op: ReduceOp,
    ) -> Result<ReducedByKey<Self, K, V>> {
        op.check::<V>()?;
        check_len("values (one per key)", keys.len(), values.len())?;
        let mut keys_out = self.alloc::<K>(keys.len())?;
        let mut values_out = self.alloc::<V>(keys.len())?;
        let len = self.raw_scalar(Validated::new(), |count| {
            self.reduce_by_key_into(keys, values, &mut keys_out, &mut values_out, count, op)
        })?;
        Ok(ReducedByKey {
            keys: keys_out,
            values: values_out,
            len: len as usize,
        })
    }

    /// The first key of each run into the front of `keys_out` and the run's values reduced
    /// into the front of `values_out` (each the keys' length), and the number of runs into
    /// `count` (one element; an empty input writes 0). Like CUB's `DeviceReduce::ReduceByKey`.
    /// A run's reduction is the inclusive [`scan_by_key`](Self::scan_by_key) at its last
    /// position, bit for bit.
    ///
    /// ```
    /// use wavekit_core::{Backend, ByKey, ReduceOp, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let keys = b.upload(&[3i32, 3, 5])?;
    /// let vals = b.upload(&[6u32, 7, 8])?;
    /// let (mut k, mut v, mut n) = (b.alloc::<i32>(3)?, b.alloc::<u32>(3)?, b.alloc::<u64>(1)?);
    /// b.reduce_by_key_into(&keys, &vals, &mut k, &mut v, &mut n, ReduceOp::Min)?;
    /// assert_eq!((b.download(&n)?[0], &b.download(&v)?[..2]), (2, &[6u32, 8][..]));
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `UnsupportedOp` for a bitwise op on floats; `LengthMismatch` when `values`, `keys_out`
    /// or `values_out` is not the keys' length or `count` not one element; `ForeignBuffer`; a
    /// backend's `Device` error. Nothing is written on error.
    fn reduce_by_key_into<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        keys_out: &mut Self::Buffer<K>,
        values_out: &mut Self::Buffer<V>,
        count: &mut Self::Buffer<u64>,
        op: ReduceOp,
    ) -> Result<()> {
        op.check::<V>()?;
        let n = keys.len();
        check_len("values (one per key)", n, values.len())?;
        check_len("reduced keys (the keys' length)", n, keys_out.len())?;
        check_len("reduced values (the keys' length)", n, values_out.len())?;
        check_len("number of runs (one element)", 1, count.len())?;
        let out = ByKeyOut::Reduce {
            keys: keys_out,
            values: values_out,
            count,
        };
        self.raw_by_key(Validated::new(), keys, values, op, out)
    }
}

impl<B: RawBackend> ByKey for B {}
