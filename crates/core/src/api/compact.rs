//! Stream compaction: [`Compacted`] and the checks of `compact` / `compact_into`.

use super::{Collectives, check_len};
use crate::backend::{Backend, DeviceBuffer};
use crate::element::Element;
use crate::error::Result;
use crate::predicate::Predicate;
use crate::raw::{RawBackend, Validated};

/// The result of a compaction: the selected elements are `data[..len]`.
pub struct Compacted<B: Backend, T: Element> {
    /// The output buffer, as long as the input; only its first `len` elements are defined.
    pub data: B::Buffer<T>,
    /// Elements selected.
    pub len: usize,
}

impl<B: Backend, T: Element> std::fmt::Debug for Compacted<B, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compacted")
            .field("data", &self.data)
            .field("len", &self.len)
            .finish()
    }
}

pub(crate) fn compact<B: RawBackend, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    pred: Predicate<T>,
    stable: bool,
) -> Result<Compacted<B, T>> {
    let mut data = b.alloc::<T>(input.len())?;
    let len = b.raw_scalar(Validated::new(), |count| {
        b.compact_into(input, pred, stable, &mut data, count)
    })?;
    Ok(Compacted {
        data,
        len: len as usize,
    })
}

pub(crate) fn compact_into<B: RawBackend, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    pred: Predicate<T>,
    stable: bool,
    out: &mut B::Buffer<T>,
    count: &mut B::Buffer<u64>,
) -> Result<()> {
    check_len(
        "compaction output (the input's length)",
        input.len(),
        out.len(),
    )?;
    check_len("compaction count (one element)", 1, count.len())?;
    b.raw_compact(Validated::new(), input, pred, stable, out, count)
}
