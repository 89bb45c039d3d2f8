//! The checks of a butterfly over the rows of a matrix ([`SliceDevice::reduce_rows_in_place`],
//! the fold of wavekit-dist's reproducible allreduce).
//!
//! [`SliceDevice::reduce_rows_in_place`]: super::SliceDevice::reduce_rows_in_place

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
pub fn check_reduce_rows<T: Element>(
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

/// [`check_reduce_rows`] under its former name.
///
/// # Errors
/// As `check_reduce_rows`'s.
#[deprecated(since = "0.1.0", note = "renamed check_reduce_rows")]
pub fn check_bfly_rows<T: Element>(
    op: ReduceOp,
    len: usize,
    r: usize,
    dst: usize,
    max_rows: usize,
) -> Result<usize> {
    check_reduce_rows::<T>(op, len, r, dst, max_rows)
}
