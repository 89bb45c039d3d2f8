//! Device reduce: the checks of `reduce` / `reduce_into`.

use super::{Collectives, check_len};
use crate::backend::DeviceBuffer;
use crate::element::Element;
use crate::error::{Result, WavekitError};
use crate::op::ReduceOp;
use crate::raw::{RawBackend, Validated};

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
