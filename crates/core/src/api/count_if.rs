//! count_if: the checks of `count_if` / `count_if_into`.

use super::{Collectives, check_len};
use crate::backend::DeviceBuffer;
use crate::element::Element;
use crate::error::Result;
use crate::predicate::Predicate;
use crate::raw::{RawBackend, Validated};

pub(crate) fn count_if<B: RawBackend, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    pred: Predicate<T>,
) -> Result<u64> {
    b.raw_scalar(Validated::new(), |out| b.count_if_into(input, pred, out))
}

pub(crate) fn count_if_into<B: RawBackend, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    pred: Predicate<T>,
    out: &mut B::Buffer<u64>,
) -> Result<()> {
    check_len("count_if output (one element)", 1, out.len())?;
    b.raw_count_if(Validated::new(), input, pred, out)
}
