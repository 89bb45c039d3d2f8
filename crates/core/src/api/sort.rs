//! Sorting ([`Sort`]): stable radix-order sorts of keys, of key-value pairs and argsort
//! (docs/SEMANTICS.md "sort"). [`SortOrder`], the order every sorting collective takes, is
//! vocabulary ([`vocab`](crate::vocab)), re-exported here where it was.

use super::check_len;
use crate::backend::DeviceBuffer;
use crate::element::Element;
use crate::error::{Result, WavekitError};
use crate::raw::{RawBackend, Validated};

pub use crate::vocab::SortOrder;

/// Indices of an argsort are `u32`: refuse inputs with more elements than that.
pub(crate) fn check_indexable(what: &'static str, len: usize) -> Result<()> {
    if len > u32::MAX as usize {
        return Err(WavekitError::TooLarge {
            what,
            value: len as u64,
            limit: u32::MAX as u64,
        });
    }
    Ok(())
}

/// Sorting device buffers: stable LSD radix order on every backend, the same bits everywhere
/// (docs/SEMANTICS.md "sort"). Keys of any element type: integers by value, floats by the
/// total order of [`Element::order_bits`] (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf <
/// +NaN); NaN keys are sorted, never an error. Like [`Collectives`](crate::Collectives), the
/// `_into` forms write into outputs the caller allocated and, on a GPU, only enqueue; the
/// returning forms allocate their outputs and synchronise. Every check is made before any
/// work; on an error the outputs are untouched.
pub trait Sort: RawBackend {
    /// [`sort_keys_into`](Self::sort_keys_into) into a new buffer; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let keys = cpu.upload(&[3.5f32, -0.0, f32::NAN, 0.0, -2.0, f32::NEG_INFINITY])?;
    /// let up = cpu.download(&cpu.sort_keys(&keys, SortOrder::ASCENDING)?)?;
    /// assert_eq!(up[..5], [f32::NEG_INFINITY, -2.0, -0.0, 0.0, 3.5]);
    /// assert!(up[1].is_sign_negative() && up[2].is_sign_negative() && up[5].is_nan());
    /// let down = cpu.download(&cpu.sort_keys(&keys, SortOrder::DESCENDING)?)?;
    /// assert!(down[0].is_nan() && down[1] == 3.5);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidBitRange`; `ForeignBuffer`; `OutOfMemory`; a backend's `Device` error.
    fn sort_keys<K: Element>(
        &self,
        keys: &Self::Buffer<K>,
        order: SortOrder,
    ) -> Result<Self::Buffer<K>> {
        order.spec::<K>()?;
        let mut out = self.alloc::<K>(keys.len())?;
        self.sort_keys_into(keys, &mut out, order)?;
        self.synchronize()?;
        Ok(out)
    }

    /// The stable sort of `keys` by `order` into `out` (the keys' length).
    ///
    /// ```
    /// use wavekit_core::{Backend, Sort, SortOrder, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let keys = b.upload(&[0x102u32, 0x201, 0x101, 0x202])?;
    /// let mut out = b.alloc::<u32>(4)?;
    /// b.sort_keys_into(&keys, &mut out, SortOrder::ASCENDING)?;
    /// assert_eq!(b.download(&out)?, [0x101, 0x102, 0x201, 0x202]);
    /// // Only the low byte compared: equal low bytes keep their input order.
    /// b.sort_keys_into(&keys, &mut out, SortOrder::ASCENDING.bits(0, 8))?;
    /// assert_eq!(b.download(&out)?, [0x201, 0x101, 0x102, 0x202]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidBitRange` unless the order's bit range lies inside the key; `LengthMismatch`
    /// when `out` is not the keys' length; `ForeignBuffer`; a backend's `Device` error.
    fn sort_keys_into<K: Element>(
        &self,
        keys: &Self::Buffer<K>,
        out: &mut Self::Buffer<K>,
        order: SortOrder,
    ) -> Result<()> {
        let spec = order.spec::<K>()?;
        check_len("sorted keys (the keys' length)", keys.len(), out.len())?;
        if keys.is_empty() {
            return Ok(());
        }
        self.raw_sort_keys(Validated::new(), keys, out, spec)
    }

    /// [`sort_pairs_into`](Self::sort_pairs_into) into new buffers; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W64);
    /// let keys = cpu.upload(&[2i64, -7, 2, 0])?;
    /// let vals = cpu.upload(&[0.5f64, 1.5, 2.5, 3.5])?;
    /// let (k, v) = cpu.sort_pairs(&keys, &vals, SortOrder::DESCENDING)?;
    /// assert_eq!(cpu.download(&k)?, [2, 2, 0, -7]);
    /// assert_eq!(cpu.download(&v)?, [0.5, 2.5, 3.5, 1.5]); // the two 2s in input order
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`sort_pairs_into`](Self::sort_pairs_into), and `OutOfMemory`.
    fn sort_pairs<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        order: SortOrder,
    ) -> Result<(Self::Buffer<K>, Self::Buffer<V>)> {
        order.spec::<K>()?;
        check_len("values (one per key)", keys.len(), values.len())?;
        let mut keys_out = self.alloc::<K>(keys.len())?;
        let mut values_out = self.alloc::<V>(keys.len())?;
        self.sort_pairs_into(keys, values, &mut keys_out, &mut values_out, order)?;
        self.synchronize()?;
        Ok((keys_out, values_out))
    }

    /// The stable sort of `keys` by `order` into `keys_out`, each value moved with its key
    /// into `values_out`; all four buffers have the keys' length.
    ///
    /// ```
    /// use wavekit_core::{Backend, Sort, SortOrder, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let keys = b.upload(&[3u32, 1, 3, 0])?;
    /// let vals = b.upload(&[10i32, 11, 12, 13])?;
    /// let (mut k, mut v) = (b.alloc::<u32>(4)?, b.alloc::<i32>(4)?);
    /// b.sort_pairs_into(&keys, &vals, &mut k, &mut v, SortOrder::ASCENDING)?;
    /// assert_eq!(b.download(&k)?, [0, 1, 3, 3]);
    /// assert_eq!(b.download(&v)?, [13, 11, 10, 12]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidBitRange`; `LengthMismatch` when the values or an output are not the keys'
    /// length; `ForeignBuffer`; a backend's `Device` error.
    fn sort_pairs_into<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        keys_out: &mut Self::Buffer<K>,
        values_out: &mut Self::Buffer<V>,
        order: SortOrder,
    ) -> Result<()> {
        let spec = order.spec::<K>()?;
        check_len("values (one per key)", keys.len(), values.len())?;
        check_len("sorted keys (the keys' length)", keys.len(), keys_out.len())?;
        check_len(
            "sorted values (the keys' length)",
            keys.len(),
            values_out.len(),
        )?;
        if keys.is_empty() {
            return Ok(());
        }
        self.raw_sort_pairs(
            Validated::new(),
            keys,
            Some(values),
            Some(keys_out),
            values_out,
            spec,
        )
    }

    /// [`argsort_into`](Self::argsort_into) into a new buffer; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let keys = cpu.upload(&[0.5f32, -1.0, 0.5, -3.0])?;
    /// let idx = cpu.argsort(&keys, SortOrder::ASCENDING)?;
    /// assert_eq!(cpu.download(&idx)?, [3, 1, 0, 2]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`argsort_into`](Self::argsort_into), and `OutOfMemory`.
    fn argsort<K: Element>(
        &self,
        keys: &Self::Buffer<K>,
        order: SortOrder,
    ) -> Result<Self::Buffer<u32>> {
        order.spec::<K>()?;
        check_indexable("argsort keys (indices are u32)", keys.len())?;
        let mut indices = self.alloc::<u32>(keys.len())?;
        self.argsort_into(keys, &mut indices, order)?;
        self.synchronize()?;
        Ok(indices)
    }

    /// The input index of each key of the stable sort of `keys` by `order`, into `indices`
    /// (the keys' length): `keys[indices[i]]` is the i-th sorted key.
    ///
    /// ```
    /// use wavekit_core::{Backend, Sort, SortOrder, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let keys = b.upload(&[5i32, -5, 5, 0])?;
    /// let mut idx = b.alloc::<u32>(4)?;
    /// b.argsort_into(&keys, &mut idx, SortOrder::DESCENDING)?;
    /// assert_eq!(b.download(&idx)?, [0, 2, 3, 1]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidBitRange`; `TooLarge` for more than `u32::MAX` keys; `LengthMismatch` when
    /// `indices` is not the keys' length; `ForeignBuffer`; a backend's `Device` error.
    fn argsort_into<K: Element>(
        &self,
        keys: &Self::Buffer<K>,
        indices: &mut Self::Buffer<u32>,
        order: SortOrder,
    ) -> Result<()> {
        let spec = order.spec::<K>()?;
        check_indexable("argsort keys (indices are u32)", keys.len())?;
        check_len(
            "argsort indices (the keys' length)",
            keys.len(),
            indices.len(),
        )?;
        if keys.is_empty() {
            return Ok(());
        }
        self.raw_sort_pairs::<K, u32>(Validated::new(), keys, None, None, indices, spec)
    }
}

impl<B: RawBackend> Sort for B {}
