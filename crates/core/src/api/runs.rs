//! Runs of equal keys ([`Runs`]): `unique`, `unique_by_key` and `run_length_encode`
//! (docs/SEMANTICS.md "runs").

use super::check_len;
use super::sort::check_indexable;
use crate::backend::{Backend, DeviceBuffer};
use crate::element::Element;
use crate::error::Result;
use crate::raw::{RawBackend, RunsOut, Validated};

/// What [`Runs::unique_by_key`] returns: the first key and the first value of each run.
pub struct UniqueByKey<B: Backend, K: Element, V: Element> {
    /// The first key of each run in `keys[..len]` (the buffer is the input's length).
    pub keys: B::Buffer<K>,
    /// The value at each run's first position in `values[..len]` (the input's length).
    pub values: B::Buffer<V>,
    /// The number of runs.
    pub len: usize,
}

impl<B: Backend, K: Element, V: Element> std::fmt::Debug for UniqueByKey<B, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UniqueByKey")
            .field("keys", &self.keys)
            .field("values", &self.values)
            .field("len", &self.len)
            .finish()
    }
}

/// What [`Runs::run_length_encode`] returns: each run's key and length.
pub struct RunLengths<B: Backend, K: Element> {
    /// The key of each run in `keys[..len]` (the buffer is the input's length).
    pub keys: B::Buffer<K>,
    /// The length of each run in `lengths[..len]` (the input's length).
    pub lengths: B::Buffer<u32>,
    /// The number of runs.
    pub len: usize,
}

impl<B: Backend, K: Element> std::fmt::Debug for RunLengths<B, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunLengths")
            .field("keys", &self.keys)
            .field("lengths", &self.lengths)
            .field("len", &self.len)
            .finish()
    }
}

/// The checks every `_into` form shares: each output as long as the keys, one count.
fn check_outputs(n: usize, outputs: &[(&'static str, usize)], count: usize) -> Result<()> {
    for &(what, len) in outputs {
        check_len(what, n, len)?;
    }
    check_len("number of runs (one element)", 1, count)
}

/// Grouped collectives over **runs**: maximal stretches of consecutive keys that compare equal
/// (`==`, so `-0.0` and `+0.0` share a run and a NaN key is a run of its own, as in CUB and
/// `torch.unique_consecutive`). Runs are found in one pass over the keys; each run is
/// represented by its first position, so every result is exact and the same on every backend
/// and warp width. Outputs are the input's length and hold the runs at the front; the number
/// of runs comes back (the conveniences) or into a one-element `u64` buffer (the `_into`
/// forms, which on a GPU only enqueue on the backend's stream). An empty input has no runs.
pub trait Runs: RawBackend {
    /// [`unique_into`](Self::unique_into) into a new buffer; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let keys = cpu.upload(&[3u32, 3, 1, 1, 1, 3, 7])?;
    /// let u = cpu.unique(&keys)?;
    /// assert_eq!(u.len, 4);
    /// assert_eq!(cpu.download(&u.data)?[..u.len], [3, 1, 3, 7]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`unique_into`](Self::unique_into), and `OutOfMemory`.
    fn unique<K: Element>(&self, keys: &Self::Buffer<K>) -> Result<super::Compacted<Self, K>> {
        let mut data = self.alloc::<K>(keys.len())?;
        let len = self.raw_scalar(Validated::new(), |count| {
            self.unique_into(keys, &mut data, count)
        })?;
        Ok(super::Compacted {
            data,
            len: len as usize,
        })
    }

    /// The first key of each run into the front of `keys_out` (the keys' length), in order,
    /// and the number of runs into `count` (one element). Like CUB's `DeviceSelect::Unique`.
    ///
    /// ```
    /// use wavekit_core::{Backend, Runs, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W64);
    /// let keys = b.upload(&[0.5f32, 0.5, -0.0, 0.0, 2.0])?;
    /// let (mut out, mut count) = (b.alloc::<f32>(5)?, b.alloc::<u64>(1)?);
    /// b.unique_into(&keys, &mut out, &mut count)?;
    /// assert_eq!(b.download(&count)?, [3]); // -0.0 == 0.0: one run, its first key kept
    /// assert_eq!(b.download(&out)?[..3], [0.5, -0.0, 2.0]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `keys_out` is not the keys' length or `count` not one element;
    /// `ForeignBuffer`; a backend's `Device` error.
    fn unique_into<K: Element>(
        &self,
        keys: &Self::Buffer<K>,
        keys_out: &mut Self::Buffer<K>,
        count: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        check_outputs(
            keys.len(),
            &[("unique keys (the keys' length)", keys_out.len())],
            count.len(),
        )?;
        let out = RunsOut::<Self, K, K> {
            keys: Some(keys_out),
            values: None,
            lengths: None,
        };
        self.raw_runs(Validated::new(), keys, None, out, count)
    }

    /// [`unique_by_key_into`](Self::unique_by_key_into) into new buffers; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let keys = cpu.upload(&[1i64, 1, 2, 2, 1])?;
    /// let vals = cpu.upload(&[10.0f64, 11.0, 20.0, 21.0, 12.0])?;
    /// let u = cpu.unique_by_key(&keys, &vals)?;
    /// assert_eq!(cpu.download(&u.keys)?[..u.len], [1, 2, 1]);
    /// assert_eq!(cpu.download(&u.values)?[..u.len], [10.0, 20.0, 12.0]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`unique_by_key_into`](Self::unique_by_key_into), and `OutOfMemory`.
    fn unique_by_key<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
    ) -> Result<UniqueByKey<Self, K, V>> {
        check_len("values (one per key)", keys.len(), values.len())?;
        let mut keys_out = self.alloc::<K>(keys.len())?;
        let mut values_out = self.alloc::<V>(keys.len())?;
        let len = self.raw_scalar(Validated::new(), |count| {
            self.unique_by_key_into(keys, values, &mut keys_out, &mut values_out, count)
        })?;
        Ok(UniqueByKey {
            keys: keys_out,
            values: values_out,
            len: len as usize,
        })
    }

    /// The first key of each run and the value at the same position into the fronts of
    /// `keys_out` and `values_out` (each the keys' length), and the number of runs into
    /// `count`. Like CUB's `DeviceSelect::UniqueByKey`: the first of each run is kept.
    ///
    /// ```
    /// use wavekit_core::{Backend, Runs, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let keys = b.upload(&[7u32, 7, 7, 9])?;
    /// let vals = b.upload(&[1u64, 2, 3, 4])?;
    /// let (mut k, mut v, mut n) = (b.alloc::<u32>(4)?, b.alloc::<u64>(4)?, b.alloc::<u64>(1)?);
    /// b.unique_by_key_into(&keys, &vals, &mut k, &mut v, &mut n)?;
    /// assert_eq!((b.download(&n)?[0], &b.download(&v)?[..2]), (2, &[1u64, 4][..]));
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `values`, `keys_out` or `values_out` is not the keys' length or
    /// `count` not one element; `ForeignBuffer`; a backend's `Device` error.
    fn unique_by_key_into<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        keys_out: &mut Self::Buffer<K>,
        values_out: &mut Self::Buffer<V>,
        count: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        check_outputs(
            keys.len(),
            &[
                ("values (one per key)", values.len()),
                ("unique keys (the keys' length)", keys_out.len()),
                ("unique values (the keys' length)", values_out.len()),
            ],
            count.len(),
        )?;
        let out = RunsOut::<Self, K, V> {
            keys: Some(keys_out),
            values: Some(values_out),
            lengths: None,
        };
        self.raw_runs(Validated::new(), keys, Some(values), out, count)
    }

    /// [`run_length_encode_into`](Self::run_length_encode_into) into new buffers;
    /// synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W64);
    /// let keys = cpu.upload(&[5u32, 5, 5, 2, 5, 5])?;
    /// let rle = cpu.run_length_encode(&keys)?;
    /// assert_eq!(cpu.download(&rle.keys)?[..rle.len], [5, 2, 5]);
    /// assert_eq!(cpu.download(&rle.lengths)?[..rle.len], [3, 1, 2]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`run_length_encode_into`](Self::run_length_encode_into), and `OutOfMemory`.
    fn run_length_encode<K: Element>(&self, keys: &Self::Buffer<K>) -> Result<RunLengths<Self, K>> {
        check_indexable("run-length keys (lengths are u32)", keys.len())?;
        let mut keys_out = self.alloc::<K>(keys.len())?;
        let mut lengths = self.alloc::<u32>(keys.len())?;
        let len = self.raw_scalar(Validated::new(), |count| {
            self.run_length_encode_into(keys, &mut keys_out, &mut lengths, count)
        })?;
        Ok(RunLengths {
            keys: keys_out,
            lengths,
            len: len as usize,
        })
    }

    /// The key and the length of each run into the fronts of `keys_out` and `lengths` (each
    /// the keys' length), and the number of runs into `count`. Like CUB's
    /// `DeviceRunLengthEncode::Encode`.
    ///
    /// ```
    /// use wavekit_core::{Backend, Runs, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let keys = b.upload(&[1i32, 2, 2, 2])?;
    /// let (mut k, mut l, mut n) = (b.alloc::<i32>(4)?, b.alloc::<u32>(4)?, b.alloc::<u64>(1)?);
    /// b.run_length_encode_into(&keys, &mut k, &mut l, &mut n)?;
    /// assert_eq!((b.download(&n)?[0], &b.download(&l)?[..2]), (2, &[1u32, 3][..]));
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `TooLarge` for more than `u32::MAX` keys (lengths are `u32`); `LengthMismatch` when
    /// `keys_out` or `lengths` is not the keys' length or `count` not one element;
    /// `ForeignBuffer`; a backend's `Device` error.
    fn run_length_encode_into<K: Element>(
        &self,
        keys: &Self::Buffer<K>,
        keys_out: &mut Self::Buffer<K>,
        lengths: &mut Self::Buffer<u32>,
        count: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        check_indexable("run-length keys (lengths are u32)", keys.len())?;
        check_outputs(
            keys.len(),
            &[
                ("run keys (the keys' length)", keys_out.len()),
                ("run lengths (the keys' length)", lengths.len()),
            ],
            count.len(),
        )?;
        let out = RunsOut::<Self, K, K> {
            keys: Some(keys_out),
            values: None,
            lengths: Some(lengths),
        };
        self.raw_runs(Validated::new(), keys, None, out, count)
    }
}

impl<B: RawBackend> Runs for B {}
