//! Block reduce: the checks of `block_reduce` / `block_reduce_into`.

use super::{Collectives, check_len};
use crate::backend::DeviceBuffer;
use crate::canonical::MAX_BLOCK;
use crate::element::Element;
use crate::error::{Result, WavekitError};
use crate::raw::{RawBackend, Validated};
use crate::vocab::ReduceOp;
use crate::width::LOGICAL_GROUP;

fn check_block_reduce<T: Element>(block: u32, op: ReduceOp) -> Result<()> {
    op.check::<T>()?;
    if !block.is_multiple_of(LOGICAL_GROUP) || block == 0 || block > MAX_BLOCK {
        return Err(WavekitError::InvalidBlockSize(block));
    }
    Ok(())
}

pub(crate) fn block_reduce<B: RawBackend, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    block: u32,
    op: ReduceOp,
) -> Result<Vec<T>> {
    check_block_reduce::<T>(block, op)?;
    let mut out = b.alloc::<T>(input.len().div_ceil(block as usize))?;
    b.block_reduce_into(input, block, op, &mut out)?;
    b.download(&out)
}

pub(crate) fn block_reduce_into<B: RawBackend, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    block: u32,
    op: ReduceOp,
    out: &mut B::Buffer<T>,
) -> Result<()> {
    check_block_reduce::<T>(block, op)?;
    check_len(
        "block reduce output (one per block)",
        input.len().div_ceil(block as usize),
        out.len(),
    )?;
    if input.is_empty() {
        return Ok(());
    }
    b.raw_block_reduce(Validated::new(), input, block, op, out)
}
