//! Device scan: the checks of `scan`.

use super::check_len;
use crate::backend::{DeviceBuffer, ScanKind};
use crate::element::Element;
use crate::error::Result;
use crate::op::ReduceOp;
use crate::raw::{RawBackend, Validated};

pub(crate) fn scan<B: RawBackend, T: Element>(
    b: &B,
    input: &B::Buffer<T>,
    output: &mut B::Buffer<T>,
    op: ReduceOp,
    kind: ScanKind,
) -> Result<()> {
    op.check::<T>()?;
    check_len("scan output", input.len(), output.len())?;
    if input.is_empty() {
        return Ok(());
    }
    b.raw_device_scan(Validated::new(), input, output, op, kind)
}
