//! Device scan: the checks of `scan`.

use super::check_len;
use crate::backend::{DeviceBuffer, ScanKind};
use crate::element::Element;
use crate::error::Result;
use crate::raw::{RawBackend, Validated};
use crate::vocab::ReduceOp;

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

/// The checks of the sharded scan's device steps ([`SliceDevice`](super::SliceDevice)'s
/// `scan_aggregates_into`, `scan_carried_into` and `fold_left_into`):
/// a full-width element type (not f16/bf16), an op the type takes, a non-empty input, and
/// `out_len` (aggregates: one per `SCAN_TILE` tile; the carried scan: the input's length;
/// the fold: one) and `carry_len` (the carried scan's, one; `None` for the others).
///
/// # Errors
/// `UnsupportedType`, `UnsupportedOp`, `EmptyInput`, `LengthMismatch`.
pub fn check_scan_steps<T: Element>(
    step: &'static str,
    op: ReduceOp,
    n: usize,
    out_len: usize,
    carry_len: Option<usize>,
) -> Result<()> {
    super::full::<T>(step)?;
    op.check::<T>()?;
    if n == 0 {
        return Err(crate::error::WavekitError::EmptyInput { what: step });
    }
    let (what, want) = match step {
        "scan_aggregates" => (
            "scan aggregates (one per tile)",
            n.div_ceil(crate::canonical::SCAN_TILE),
        ),
        "scan_carried" => ("scan output", n),
        _ => ("fold output (one element)", 1),
    };
    check_len(what, want, out_len)?;
    match carry_len {
        Some(c) => check_len("carried prefix (one element)", 1, c),
        None => Ok(()),
    }
}
