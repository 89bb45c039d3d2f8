//! Partition in CUB's order ([`PartitionReversed`]): `partition_reversed` (two-way) and
//! `partition3_reversed` (three-way) read the input once and write the rest from the back, in
//! reverse input order (docs/SEMANTICS.md "partition_reversed").

use super::check_len;
use super::partition::Partitioned;
use crate::backend::{Backend, DeviceBuffer};
use crate::element::Element;
use crate::error::Result;
use crate::predicate::Predicate;
use crate::raw::{RawBackend, Validated};

/// What [`PartitionReversed::partition3_reversed`] returns: CUB's three-way layout, the middle part in
/// its own buffer.
pub struct Partitioned3Reversed<B: Backend, T: Element> {
    /// The first part in `data[..first]` in input order, the rest in
    /// `data[len - rest..]` in reverse input order (the rest's first element last), zeros in
    /// the `second` slots between them (the buffer is the input's length).
    pub data: B::Buffer<T>,
    /// The middle part in `middle[..second]` in input order, zeros after it (the input's
    /// length).
    pub middle: B::Buffer<T>,
    /// The number of elements for which the first predicate holds.
    pub first: usize,
    /// The number for which the first does not hold and the second does.
    pub second: usize,
}

impl<B: Backend, T: Element> std::fmt::Debug for Partitioned3Reversed<B, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Partitioned3Reversed")
            .field("data", &self.data)
            .field("middle", &self.middle)
            .field("first", &self.first)
            .field("second", &self.second)
            .finish()
    }
}

/// **Partition in CUB's order** by [`Predicate`]s (those of [`Partition`](super::Partition)):
/// the selected elements in input order, the rest from the back of the output in reverse input
/// order, as CUB's `DevicePartition::If`. The stable partition must know how many are selected
/// before it can place the rest, so a GPU reads its input twice; this order needs only the
/// count before each element, so a GPU reads the input once. Every backend and warp width gives
/// the same bits. An empty input writes counts of 0.
pub trait PartitionReversed: RawBackend {
    /// [`partition_reversed_into`](Self::partition_reversed_into) into a new buffer;
    /// synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W32);
    /// let xs = cpu.upload(&[5i32, -1, 7, 0, -3, 2])?;
    /// let p = cpu.partition_reversed(&xs, Predicate::Gt(0))?;
    /// assert_eq!(p.selected, 3);
    /// assert_eq!(cpu.download(&p.data)?, [5, 7, 2, -3, 0, -1]); // the rest reversed
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`partition_reversed_into`](Self::partition_reversed_into), and `OutOfMemory`.
    fn partition_reversed<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
    ) -> Result<Partitioned<Self, T>> {
        let mut data = self.alloc::<T>(input.len())?;
        let selected = self.raw_scalar(Validated::new(), |count| {
            self.partition_reversed_into(input, pred, &mut data, count)
        })?;
        Ok(Partitioned {
            data,
            selected: selected as usize,
        })
    }

    /// The elements for which `pred` holds, in input order, then the rest in reverse input
    /// order, into `out` (the input's length: the rest's first element at the end), and the
    /// number selected into `count` (one element). As CUB's two-way `DevicePartition::If`; a
    /// GPU reads the input once.
    ///
    /// ```
    /// use wavekit_core::{Backend, PartitionReversed, Predicate, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W64);
    /// let xs = b.upload(&[1.0f32, f32::NAN, -0.0, 3.0])?;
    /// let (mut out, mut count) = (b.alloc::<f32>(4)?, b.alloc::<u64>(1)?);
    /// b.partition_reversed_into(&xs, Predicate::Gt(0.0), &mut out, &mut count)?;
    /// assert_eq!(b.download(&count)?, [2]);
    /// let bits: Vec<u32> = b.download(&out)?.iter().map(|x| x.to_bits()).collect();
    /// assert_eq!(bits, [1.0f32, 3.0, -0.0, f32::NAN].map(f32::to_bits));
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `out` is not the input's length or `count` not one element,
    /// before anything is written; `TooLarge` past a backend's limit (GPUs: 2^40 elements);
    /// `ForeignBuffer`; a backend's `Device` error.
    fn partition_reversed_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        pred: Predicate<T>,
        out: &mut Self::Buffer<T>,
        count: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        check_len(
            "partition_reversed output (the input's length)",
            input.len(),
            out.len(),
        )?;
        check_len("partition_reversed count (one element)", 1, count.len())?;
        self.raw_partition_reversed(Validated::new(), input, pred, None, out, count)
    }

    /// [`partition3_reversed_into`](Self::partition3_reversed_into) into new buffers;
    /// synchronises.
    ///
    /// ```
    /// use wavekit::prelude::*;
    ///
    /// let cpu = CpuBackend::new(WarpWidth::W64);
    /// let xs = cpu.upload(&[4u32, 12, 1, 30, 7, 15])?;
    /// let p = cpu.partition3_reversed(&xs, Predicate::Lt(5), Predicate::Lt(13))?;
    /// assert_eq!((p.first, p.second), (2, 2));
    /// assert_eq!(cpu.download(&p.data)?, [4, 1, 0, 0, 15, 30]);
    /// assert_eq!(cpu.download(&p.middle)?, [12, 7, 0, 0, 0, 0]);
    /// # Ok::<(), wavekit::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// As [`partition3_reversed_into`](Self::partition3_reversed_into), and `OutOfMemory`.
    fn partition3_reversed<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        first: Predicate<T>,
        second: Predicate<T>,
    ) -> Result<Partitioned3Reversed<Self, T>> {
        let mut data = self.alloc::<T>(input.len())?;
        let mut middle = self.alloc::<T>(input.len())?;
        let mut counts = self.alloc::<u64>(2)?;
        self.partition3_reversed_into(input, first, second, &mut data, &mut middle, &mut counts)?;
        let c = self.download(&counts)?;
        Ok(Partitioned3Reversed {
            data,
            middle,
            first: c[0] as usize,
            second: c[1] as usize,
        })
    }

    /// Three-way partition, reading the input once: the elements for which `first` holds into
    /// `out` from the front in input order, those for which it does not and `second` does into
    /// `middle` from the front in input order, the rest into `out` from the back in reverse
    /// input order; the sizes of the first two parts into `counts` (two elements). `out` and
    /// `middle` are the input's length; their slots no part reaches keep what they held. As
    /// CUB's three-way `DevicePartition::If` with its first and unselected outputs sharing one
    /// buffer (the unselected through a reverse iterator).
    ///
    /// ```
    /// use wavekit_core::{Backend, PartitionReversed, Predicate, WarpWidth};
    /// let b = wavekit_cpu::CpuBackend::new(WarpWidth::W32);
    /// let xs = b.upload(&[-2i64, 9, 0, -5, 3, 0])?;
    /// let (mut out, mut mid) = (b.upload(&[7i64; 6])?, b.upload(&[7i64; 6])?);
    /// let mut counts = b.alloc::<u64>(2)?;
    /// b.partition3_reversed_into(&xs, Predicate::Lt(0), Predicate::Eq(0), &mut out, &mut mid, &mut counts)?;
    /// assert_eq!(b.download(&counts)?, [2, 2]);
    /// assert_eq!(b.download(&out)?, [-2, -5, 7, 7, 3, 9]);
    /// assert_eq!(b.download(&mid)?, [0, 0, 7, 7, 7, 7]);
    /// # Ok::<(), wavekit_core::WavekitError>(())
    /// ```
    ///
    /// # Errors
    /// `LengthMismatch` when `out` or `middle` is not the input's length or `counts` not two
    /// elements, before anything is written; `TooLarge` past a backend's limit (GPUs: 2^32
    /// elements); `ForeignBuffer`; a backend's `Device` error.
    fn partition3_reversed_into<T: Element>(
        &self,
        input: &Self::Buffer<T>,
        first: Predicate<T>,
        second: Predicate<T>,
        out: &mut Self::Buffer<T>,
        middle: &mut Self::Buffer<T>,
        counts: &mut Self::Buffer<u64>,
    ) -> Result<()> {
        check_len(
            "partition3_reversed output (the input's length)",
            input.len(),
            out.len(),
        )?;
        check_len(
            "partition3_reversed middle part (the input's length)",
            input.len(),
            middle.len(),
        )?;
        check_len("partition3_reversed counts (two elements)", 2, counts.len())?;
        self.raw_partition_reversed(
            Validated::new(),
            input,
            first,
            Some((second, middle)),
            out,
            counts,
        )
    }
}

impl<B: RawBackend> PartitionReversed for B {}
