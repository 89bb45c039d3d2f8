//! The checks of a butterfly over the rows of a matrix ([`SliceDevice::bfly_rows_in_place`],
//! the fold of wavekit-dist's reproducible allreduce).
//!
//! [`SliceDevice::bfly_rows_in_place`]: super::SliceDevice::bfly_rows_in_place

use super::check_len;
use crate::element::Element;
use crate::error::{Result, WavekitError};
use crate::vocab::ReduceOp;

/// `len` elements as `rows` equal rows, at most `max_rows` of them, row `dst` among them;
/// returns the row length.
///
/// # Errors
/// `UnsupportedOp` (a bitwise op on floats), `IndexOutOfRange` for `rows` outside
/// 1..=`max_rows` or `dst >= rows`, `LengthMismatch` when `len` is not a multiple of `rows`.
pub fn check_bfly_rows<T: Element>(
    op: ReduceOp,
    len: usize,
    rows: usize,
    dst: usize,
    max_rows: usize,
) -> Result<usize> {
    op.check::<T>()?;
    if rows == 0 || rows > max_rows {
        return Err(WavekitError::IndexOutOfRange {
            what: "rows of a butterfly",
            value: rows as u64,
            limit: (max_rows as u64).saturating_add(1),
        });
    }
    if dst >= rows {
        return Err(WavekitError::IndexOutOfRange {
            what: "destination row",
            value: dst as u64,
            limit: rows as u64,
        });
    }
    let m = len / rows;
    check_len("rows buffer (rows × equal row length)", m * rows, len)?;
    Ok(m)
}
