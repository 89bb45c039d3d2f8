//! Top-k ([`TopK`]): the first k elements of the stable sort, without sorting the input
//! (docs/SEMANTICS.md "top_k").

use super::sort::check_indexable;
use super::{SortOrder, check_len};
use crate::backend::DeviceBuffer;
use crate::element::Element;
use crate::error::{Result, WavekitError};
use crate::raw::{RawBackend, SortSpec, Validated};

fn check_k<T: Element>(n: usize, k: usize, order: SortOrder) -> Result<SortSpec> {
    let spec = order.spec::<T>()?;
    if k == 0 || k > n {
        return Err(WavekitError::InvalidK { k, n });
    }
    check_indexable("top-k input (indices are u32)", n)?;
    Ok(spec)
}

/// The k largest (`SortOrder::DESCENDING`) or k smallest (`SortOrder::ASCENDING`) elements,
/// in that order, with their input indices: exactly the first k elements of the stable sort
/// of the input by the same order, so ties go to the lower index and floats follow the sort's
/// total order (a +NaN is the largest value, a -NaN the smallest). On a GPU, for k up to n/2,
/// a radix select finds them by reading the input twice and then only the candidates that
/// share the k-th element's leading digits, instead of sorting it (past 1024 it gathers and
/// sorts just those k); larger k sort it.
pub trait TopK: RawBackend {
    /// [`top_k_into`](Self::top_k_into) into a new buffer; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let x = cpu.upload(&[0.5f32, 9.0, -3.0, 9.0, 7.5])?;
    /// let top = cpu.top_k(&x, 3, SortOrder::DESCENDING)?;
    /// assert_eq!(cpu.download(&top)?, [9.0, 9.0, 7.5]);
    /// let low = cpu.top_k(&x, 2, SortOrder::ASCENDING)?;
    /// assert_eq!(cpu.download(&low)?, [-3.0, 0.5]);
    /// assert!(cpu.top_k(&x, 0, SortOrder::DESCENDING).is_err()); // InvalidK
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`top_k_into`](Self::top_k_into), and `OutOfMemory`.
    fn top_k<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        k: usize,
        order: SortOrder,
    ) -> Result<Self::Buffer<T>> {
        check_k::<T>(input.len(), k, order)?;
        let mut values = self.alloc::<T>(k)?;
        self.top_k_into(input, k, order, &mut values)?;
        self.synchronize()?;
        Ok(values)
    }

    /// The first `k` elements of the stable sort of `input` by `order` into `values` (`k`
    /// elements).
    ///
    /// ```
    /// use wavekit_core::{Backend, SortOrder, TopK, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W64);
    /// let x = b.upload(&[4u64, 1, 8, 2])?;
    /// let mut top = b.alloc::<u64>(2)?;
    /// b.top_k_into(&x, 2, SortOrder::DESCENDING, &mut top)?;
    /// assert_eq!(b.download(&top)?, [8, 4]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `InvalidK` unless `1 <= k <=` the input's length; `InvalidBitRange`; `TooLarge` for
    /// more than `u32::MAX` elements; `LengthMismatch` when `values` is not `k` long;
    /// `ForeignBuffer`; a backend's `Device` error.
    fn top_k_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        k: usize,
        order: SortOrder,
        values: &mut Self::Buffer<T>,
    ) -> Result<()> {
        let spec = check_k::<T>(input.len(), k, order)?;
        check_len("top-k values (k elements)", k, values.len())?;
        self.raw_top_k(Validated::new(), input, k, spec, values, None)
    }

    /// [`top_k_with_indices_into`](Self::top_k_with_indices_into) into new buffers;
    /// synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let x = cpu.upload(&[5i32, 7, 7, -1])?;
    /// let (v, i) = cpu.top_k_with_indices(&x, 2, SortOrder::DESCENDING)?;
    /// assert_eq!(cpu.download(&v)?, [7, 7]);
    /// assert_eq!(cpu.download(&i)?, [1, 2]); // ties: the lower index first
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`top_k_with_indices_into`](Self::top_k_with_indices_into), and `OutOfMemory`.
    fn top_k_with_indices<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        k: usize,
        order: SortOrder,
    ) -> Result<(Self::Buffer<T>, Self::Buffer<u32>)> {
        check_k::<T>(input.len(), k, order)?;
        let mut values = self.alloc::<T>(k)?;
        let mut indices = self.alloc::<u32>(k)?;
        self.top_k_with_indices_into(input, k, order, &mut values, &mut indices)?;
        self.synchronize()?;
        Ok((values, indices))
    }

    /// [`top_k_into`](Self::top_k_into), and the input index of each value into `indices`
    /// (`k` elements).
    ///
    /// ```
    /// use wavekit_core::{Backend, SortOrder, TopK, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let x = b.upload(&[0.25f64, -8.0, 3.0])?;
    /// let (mut v, mut i) = (b.alloc::<f64>(1)?, b.alloc::<u32>(1)?);
    /// b.top_k_with_indices_into(&x, 1, SortOrder::ASCENDING, &mut v, &mut i)?;
    /// assert_eq!((b.download(&v)?, b.download(&i)?), (vec![-8.0], vec![1]));
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`top_k_into`](Self::top_k_into); `LengthMismatch` also when `indices` is not `k`
    /// long.
    fn top_k_with_indices_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        k: usize,
        order: SortOrder,
        values: &mut Self::Buffer<T>,
        indices: &mut Self::Buffer<u32>,
    ) -> Result<()> {
        let spec = check_k::<T>(input.len(), k, order)?;
        check_len("top-k values (k elements)", k, values.len())?;
        check_len("top-k indices (k elements)", k, indices.len())?;
        self.raw_top_k(Validated::new(), input, k, spec, values, Some(indices))
    }
}

impl<B: RawBackend> TopK for B {}
