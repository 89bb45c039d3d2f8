//! Segmented sort ([`SegmentedSort`]): the stable sort of each segment on its own, segments
//! as segmented reduce takes them (docs/SEMANTICS.md "segmented_sort").

use super::{Segments, SortOrder, check_len};
use crate::backend::DeviceBuffer;
use crate::element::Element;
use crate::error::Result;
use crate::raw::{RawBackend, Validated};

const KEYS: &str = "segmented sort keys (the offsets' last value)";

/// Sorting each segment of a buffer on its own: the element at position i stays inside the
/// segment that holds position i, and each segment ends up in the stable sort order of
/// [`Sort`](crate::Sort). Segments are fixed-size or offsets, the [`Segments`] of segmented
/// reduce (their vector size is not used). On a GPU, short segments are sorted a warp (or a
/// wavefront) each in registers and long ones by the device radix sort.
pub trait SegmentedSort: RawBackend {
    /// [`segmented_sort_keys_into`](Self::segmented_sort_keys_into) into a new buffer;
    /// synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let keys = cpu.upload(&[3u32, 1, 2, 9, 8, 7, 5])?;
    /// let segs = Segments::from_offsets(&cpu, &[0, 3, 3, 7], 7, VectorSize::Auto)?;
    /// let out = cpu.segmented_sort_keys(&keys, &segs, SortOrder::ASCENDING)?;
    /// assert_eq!(cpu.download(&out)?, [1, 2, 3, 5, 7, 8, 9]);
    /// let fixed = Segments::fixed(2, VectorSize::Auto)?;
    /// let out = cpu.segmented_sort_keys(&keys, &fixed, SortOrder::DESCENDING)?;
    /// assert_eq!(cpu.download(&out)?, [3, 1, 9, 2, 8, 7, 5]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`segmented_sort_keys_into`](Self::segmented_sort_keys_into), and `OutOfMemory`.
    fn segmented_sort_keys<K: Element>(
        &self,
        keys: &Self::Buffer<K>,
        segments: &Segments<Self>,
        order: SortOrder,
    ) -> Result<Self::Buffer<K>> {
        order.spec::<K>()?;
        segments.spec(keys.len(), KEYS)?;
        let mut out = self.alloc::<K>(keys.len())?;
        self.segmented_sort_keys_into(keys, segments, &mut out, order)?;
        self.synchronize()?;
        Ok(out)
    }

    /// Each segment of `keys` stably sorted by `order` into the same positions of `out` (the
    /// keys' length).
    ///
    /// ```
    /// use wavekit_core::{Backend, SegmentedSort, Segments, SortOrder, VectorSize, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W64);
    /// let keys = b.upload(&[2.0f64, -1.0, 0.5, 4.0])?;
    /// let segs = Segments::from_offsets(&b, &[0, 2, 4], 4, VectorSize::Auto)?;
    /// let mut out = b.alloc::<f64>(4)?;
    /// b.segmented_sort_keys_into(&keys, &segs, &mut out, SortOrder::ASCENDING)?;
    /// assert_eq!(b.download(&out)?, [-1.0, 2.0, 0.5, 4.0]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidBitRange`; `LengthMismatch` when offset segments were built for another length
    /// or `out` is not the keys' length; `ForeignBuffer`; a backend's `Device` error.
    fn segmented_sort_keys_into<K: Element>(
        &self,
        keys: &Self::Buffer<K>,
        segments: &Segments<Self>,
        out: &mut Self::Buffer<K>,
        order: SortOrder,
    ) -> Result<()> {
        let spec = order.spec::<K>()?;
        let segs = segments.spec(keys.len(), KEYS)?;
        check_len("sorted keys (the keys' length)", keys.len(), out.len())?;
        if keys.is_empty() {
            return Ok(());
        }
        self.raw_segmented_sort::<K, K>(Validated::new(), keys, None, segs, out, None, spec)
    }

    /// [`segmented_sort_pairs_into`](Self::segmented_sort_pairs_into) into new buffers;
    /// synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let keys = cpu.upload(&[1i32, 0, 1, 0])?;
    /// let vals = cpu.upload(&[10u64, 11, 12, 13])?;
    /// let segs = Segments::fixed(2, VectorSize::Auto)?;
    /// let (k, v) = cpu.segmented_sort_pairs(&keys, &vals, &segs, SortOrder::ASCENDING)?;
    /// assert_eq!(cpu.download(&k)?, [0, 1, 0, 1]);
    /// assert_eq!(cpu.download(&v)?, [11, 10, 13, 12]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`segmented_sort_pairs_into`](Self::segmented_sort_pairs_into), and `OutOfMemory`.
    fn segmented_sort_pairs<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        segments: &Segments<Self>,
        order: SortOrder,
    ) -> Result<(Self::Buffer<K>, Self::Buffer<V>)> {
        order.spec::<K>()?;
        segments.spec(keys.len(), KEYS)?;
        check_len("values (one per key)", keys.len(), values.len())?;
        let mut keys_out = self.alloc::<K>(keys.len())?;
        let mut values_out = self.alloc::<V>(keys.len())?;
        self.segmented_sort_pairs_into(
            keys,
            values,
            segments,
            &mut keys_out,
            &mut values_out,
            order,
        )?;
        self.synchronize()?;
        Ok((keys_out, values_out))
    }

    /// Each segment of `keys` stably sorted by `order` into the same positions of `keys_out`,
    /// every value moved with its key into `values_out`; all four buffers have the keys'
    /// length.
    ///
    /// ```
    /// use wavekit_core::{Backend, SegmentedSort, Segments, SortOrder, VectorSize, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let keys = b.upload(&[5u32, 4, 3])?;
    /// let vals = b.upload(&[0u32, 1, 2])?;
    /// let segs = Segments::fixed(3, VectorSize::Auto)?;
    /// let (mut k, mut v) = (b.alloc::<u32>(3)?, b.alloc::<u32>(3)?);
    /// b.segmented_sort_pairs_into(&keys, &vals, &segs, &mut k, &mut v, SortOrder::ASCENDING)?;
    /// assert_eq!(b.download(&v)?, [2, 1, 0]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidBitRange`; `LengthMismatch` when offset segments were built for another
    /// length, or the values or an output are not the keys' length; `ForeignBuffer`; a
    /// backend's `Device` error.
    fn segmented_sort_pairs_into<K: Element, V: Element>(
        &self,
        keys: &Self::Buffer<K>,
        values: &Self::Buffer<V>,
        segments: &Segments<Self>,
        keys_out: &mut Self::Buffer<K>,
        values_out: &mut Self::Buffer<V>,
        order: SortOrder,
    ) -> Result<()> {
        let spec = order.spec::<K>()?;
        let segs = segments.spec(keys.len(), KEYS)?;
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
        self.raw_segmented_sort(
            Validated::new(),
            keys,
            Some(values),
            segs,
            keys_out,
            Some(values_out),
            spec,
        )
    }
}

impl<B: RawBackend> SegmentedSort for B {}
