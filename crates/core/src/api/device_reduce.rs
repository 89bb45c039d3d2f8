//! Device reduce: the checks of `reduce` / `reduce_into`, and of a level of its tree.

use super::{Collectives, check_len};
use crate::backend::DeviceBuffer;
use crate::element::Element;
use crate::error::{Result, WavekitError};
use crate::raw::{RawBackend, Validated};
use crate::vocab::ReduceOp;

pub(crate) fn reduce<B: RawBackend, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    op: ReduceOp,
) -> Result<T> {
    b.raw_scalar(Validated::new(), |out| b.reduce_into(input, op, out))
}

pub(crate) fn reduce_into<B: RawBackend, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    op: ReduceOp,
    out: &mut B::Buffer<T>,
) -> Result<()> {
    op.check::<T>()?;
    check_len("reduce output (one element)", 1, out.len())?;
    if input.is_empty() {
        return Err(WavekitError::EmptyInput {
            what: "device reduce input",
        });
    }
    b.raw_device_reduce(Validated::new(), input, op, out)
}

/// The checks of a level of the reduce's tree ([`SliceDevice`](super::SliceDevice)'s
/// `reduce_partials_into`, what wavekit-dist's sharded reduce takes of each rank): `levels`
/// in 1..=4, a non-empty input of `n` elements, and `out_len` one slot (of the accumulator
/// type) for each chunk of `REDUCE_TILE^levels` elements.
///
/// # Errors
/// `UnsupportedOp` (a bitwise op on floats), `IndexOutOfRange` for `levels`, `EmptyInput`,
/// `LengthMismatch`.
pub fn check_reduce_partials<T: Element>(
    op: ReduceOp,
    n: usize,
    levels: u32,
    out_len: usize,
) -> Result<()> {
    op.check::<T>()?;
    if !(1..=4).contains(&levels) {
        return Err(WavekitError::IndexOutOfRange {
            what: "reduce tree level (1..=4)",
            value: u64::from(levels),
            limit: 5,
        });
    }
    if n == 0 {
        return Err(WavekitError::EmptyInput {
            what: "device reduce input",
        });
    }
    let chunk = (crate::canonical::REDUCE_TILE as u64).saturating_pow(levels);
    check_len(
        "partials output (one per chunk)",
        (n as u64).div_ceil(chunk) as usize,
        out_len,
    )
}

/// The checks of the levels above partials ([`SliceDevice`](super::SliceDevice)'s
/// `reduce_acc_into`, the fold of wavekit-dist's sharded reduce): `n` partials of `T`'s
/// accumulator type, at least one, into one element of `T`.
///
/// # Errors
/// `UnsupportedOp` (a bitwise op on floats), `EmptyInput`, `LengthMismatch`.
pub fn check_reduce_acc<T: Element>(op: ReduceOp, n: usize, out_len: usize) -> Result<()> {
    op.check::<T>()?;
    if n == 0 {
        return Err(WavekitError::EmptyInput {
            what: "reduce partials",
        });
    }
    check_len("reduce output (one element)", 1, out_len)
}
