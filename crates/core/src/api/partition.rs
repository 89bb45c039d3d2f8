//! Stable partition ([`Partition`]): `partition` (two-way) and `partition3` (three-way) by
//! predicates (docs/SEMANTICS.md "partition").

use super::check_len;
use crate::backend::{Backend, DeviceBuffer};
use crate::element::Element;
use crate::error::Result;
use crate::predicate::Predicate;
use crate::raw::{RawBackend, Validated};

/// What [`Partition::partition`] returns: the selected elements, then the rest.
pub struct Partitioned<B: Backend, T: Element> {
    /// The selected elements in `data[..selected]`, the rest in `data[selected..]`, each part
    /// in input order (the buffer is the input's length).
    pub data: B::Buffer<T>,
    /// The number of selected elements.
    pub selected: usize,
}

impl<B: Backend, T: Element> std::fmt::Debug for Partitioned<B, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Partitioned")
            .field("data", &self.data)
            .field("selected", &self.selected)
            .finish()
    }
}

/// What [`Partition::partition3`] returns: three parts, each in input order.
pub struct Partitioned3<B: Backend, T: Element> {
    /// The first part in `data[..first]`, the second in `data[first..first + second]`, the
    /// rest after them (the buffer is the input's length).
    pub data: B::Buffer<T>,
    /// The number of elements for which the first predicate holds.
    pub first: usize,
    /// The number for which the first does not hold and the second does.
    pub second: usize,
}

impl<B: Backend, T: Element> std::fmt::Debug for Partitioned3<B, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Partitioned3")
            .field("data", &self.data)
            .field("first", &self.first)
            .field("second", &self.second)
            .finish()
    }
}

/// **Stable partition** by [`Predicate`]s (IEEE comparisons, as in count_if and compaction:
/// NaN satisfies only `Ne`): the elements for which a predicate holds, in input order, then
/// the rest, in input order, as CUB's `DevicePartition::If` (whose rejected part is reversed;
/// here it keeps input order). The output is the input's length; the number in each leading
/// part comes back (the conveniences) or into a `u64` buffer (the `_into` forms, which on a
/// GPU only enqueue on the backend's stream and allocate nothing in steady state). Every
/// backend and warp width gives the same bits. An empty input writes counts of 0.
/// [`PartitionReversed`](super::PartitionReversed) offers CUB's order, which reads the input
/// once.
pub trait Partition: RawBackend {
    /// [`partition_into`](Self::partition_into) into a new buffer; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let xs = cpu.upload(&[5i32, -1, 7, 0, -3, 2])?;
    /// let p = cpu.partition(&xs, Predicate::Gt(0))?;
    /// assert_eq!(p.selected, 3);
    /// assert_eq!(cpu.download(&p.data)?, [5, 7, 2, -1, 0, -3]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`partition_into`](Self::partition_into), and `OutOfMemory`.
    fn partition<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
    ) -> Result<Partitioned<Self, T>> {
        let mut data = self.alloc::<T>(input.len())?;
        let selected = self.raw_scalar(Validated::new(), |count| {
            self.partition_into(input, pred, &mut data, count)
        })?;
        Ok(Partitioned {
            data,
            selected: selected as usize,
        })
    }

    /// The elements for which `pred` holds, in input order, then the rest, in input order,
    /// into `out` (the input's length), and the number selected into `count` (one element).
    ///
    /// ```
    /// use wavekit_core::{Backend, Partition, Predicate, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W64);
    /// let xs = b.upload(&[1.0f32, f32::NAN, -0.0, 3.0])?;
    /// let (mut out, mut count) = (b.alloc::<f32>(4)?, b.alloc::<u64>(1)?);
    /// b.partition_into(&xs, Predicate::Ge(0.0), &mut out, &mut count)?; // NaN: not selected
    /// assert_eq!(b.download(&count)?, [3]);
    /// let bits: Vec<u32> = b.download(&out)?.iter().map(|x| x.to_bits()).collect();
    /// assert_eq!(bits, [1.0f32, -0.0, 3.0, f32::NAN].map(f32::to_bits));
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `out` is not the input's length or `count` not one element,
    /// before anything is written; `ForeignBuffer`; a backend's `Device` error.
    fn partition_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
        out: &mut Self::Buffer<T>,
        count: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        check_len(
            "partition output (the input's length)",
            input.len(),
            out.len(),
        )?;
        check_len("partition count (one element)", 1, count.len())?;
        self.raw_partition(Validated::new(), input, pred, None, out, count)
    }

    /// [`partition3_into`](Self::partition3_into) into a new buffer; synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W64);
    /// let xs = cpu.upload(&[4u32, 12, 1, 30, 7, 15])?;
    /// let p = cpu.partition3(&xs, Predicate::Lt(5), Predicate::Lt(13))?;
    /// assert_eq!((p.first, p.second), (2, 2));
    /// assert_eq!(cpu.download(&p.data)?, [4, 1, 12, 7, 30, 15]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`partition3_into`](Self::partition3_into), and `OutOfMemory`.
    fn partition3<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        first: Predicate<T>,
        second: Predicate<T>,
    ) -> Result<Partitioned3<Self, T>> {
        let mut data = self.alloc::<T>(input.len())?;
        let mut counts = self.alloc::<u64>(2)?;
        self.partition3_into(input, first, second, &mut data, &mut counts)?;
        let c = self.download(&counts)?;
        Ok(Partitioned3 {
            data,
            first: c[0] as usize,
            second: c[1] as usize,
        })
    }

    /// Three-way stable partition into `out` (the input's length): the elements for which
    /// `first` holds, then those for which `first` does not hold and `second` does, then the
    /// rest, each part in input order; the sizes of the first two parts into `counts` (two
    /// elements). Like CUB's three-way `DevicePartition::If`, with the rest in input order.
    ///
    /// ```
    /// use wavekit_core::{Backend, Partition, Predicate, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let xs = b.upload(&[-2i64, 9, 0, -5, 3, 0])?;
    /// let (mut out, mut counts) = (b.alloc::<i64>(6)?, b.alloc::<u64>(2)?);
    /// b.partition3_into(&xs, Predicate::Lt(0), Predicate::Eq(0), &mut out, &mut counts)?;
    /// assert_eq!(b.download(&counts)?, [2, 2]);
    /// assert_eq!(b.download(&out)?, [-2, -5, 0, 0, 9, 3]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `out` is not the input's length or `counts` not two elements,
    /// before anything is written; `ForeignBuffer`; a backend's `Device` error.
    fn partition3_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        first: Predicate<T>,
        second: Predicate<T>,
        out: &mut Self::Buffer<T>,
        counts: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        check_len(
            "partition3 output (the input's length)",
            input.len(),
            out.len(),
        )?;
        check_len("partition3 counts (two elements)", 2, counts.len())?;
        self.raw_partition(Validated::new(), input, first, Some(second), out, counts)
    }
}

impl<B: RawBackend> Partition for B {}
