//! The public, validated API: every backend gets it through these blanket-implemented traits,
//! so input checking and the marking of undefined lanes are written once.
//!
//! One file per collective, named as its kernel (csrc/kernels/) and its conformance cases:
//! the traits' contracts and examples in `warp.rs` ([`WarpPrimitives`]) and `collectives.rs`
//! ([`Collectives`]), each collective's checks in its own file. The sorting collectives have a
//! trait each, contract and checks together: `sort.rs` ([`Sort`]), `segmented_sort.rs`
//! ([`SegmentedSort`]), `top_k.rs` ([`TopK`]); so have argmin/argmax, `arg_reduce.rs`
//! ([`ArgReduce`]), the grouped collectives over runs of equal keys, `runs.rs` ([`Runs`]), and reduce and scan
//! by key, `by_key.rs` ([`ByKey`]), and stable partition, `partition.rs` ([`Partition`]). The
//! device steps of the collectives across devices are [`SliceDevice`], `slice_device.rs`.

mod arg_reduce;
mod atomic_agg_inc;
mod block_reduce;
mod by_key;
mod collectives;
mod compact;
mod count_if;
mod device_reduce;
mod device_scan;
mod histogram;
mod partition;
mod partition_reversed;
mod reduce_rows;
mod runs;
mod segmented_reduce;
mod segmented_sort;
mod slice_device;
mod sort;
mod spmv;
mod top_k;
mod warp;

pub use arg_reduce::{ArgOp, ArgReduce};
pub use by_key::{ByKey, ReducedByKey};
pub use collectives::Collectives;
pub use compact::Compacted;
pub use device_reduce::{check_reduce_acc, check_reduce_partials};
pub use device_scan::check_scan_steps;
pub use partition::{Partition, Partitioned, Partitioned3};
pub use partition_reversed::{PartitionReversed, Partitioned3Reversed};
#[allow(deprecated)]
pub use reduce_rows::{check_bfly_rows, check_reduce_rows};
pub use runs::{RunLengths, Runs, UniqueByKey};
pub use segmented_reduce::{Segments, VectorSize, auto_vector, check_offsets};
pub use segmented_sort::SegmentedSort;
pub use slice_device::SliceDevice;
pub use sort::{Sort, SortOrder};
pub use spmv::Csr;
pub use top_k::TopK;
pub use warp::{VoteResult, WarpPrimitives};

use crate::backend::Backend;
use crate::error::{Result, WavekitError};
use crate::mask::LaneMask;

fn check_mask<B: Backend>(b: &B, mask: LaneMask) -> Result<()> {
    if mask.width() != b.warp_width() {
        return Err(WavekitError::MaskWidthMismatch {
            mask_width: mask.width().lanes(),
            warp: b.warp_width().lanes(),
        });
    }
    Ok(())
}

/// `Ok` when a length is the one expected; shared with backends that check again.
///
/// # Errors
/// `LengthMismatch` naming `what`, the expected and the actual length.
pub fn check_len(what: &'static str, expected: usize, got: usize) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(WavekitError::LengthMismatch {
            what,
            expected,
            got,
        })
    }
}

/// `Ok` when `start + k * stride` lies below `len` for every k below `count` (a strided read of
/// `count` elements; none for `count == 0`).
///
/// # Errors
/// `IndexOutOfRange` with the last element's position (saturated) and `len`.
pub fn check_strided(len: usize, start: usize, stride: usize, count: usize) -> Result<()> {
    let Some(steps) = count.checked_sub(1) else {
        return Ok(());
    };
    let last = steps
        .checked_mul(stride)
        .and_then(|s| s.checked_add(start))
        .unwrap_or(usize::MAX);
    if last < len {
        return Ok(());
    }
    Err(WavekitError::IndexOutOfRange {
        what: "strided read's last element",
        value: last as u64,
        limit: len as u64,
    })
}

/// `Ok` unless `T` is a 16-bit float and `collective` does not take those yet (the API refuses
/// them before any work, on every backend alike).
///
/// # Errors
/// `UnsupportedType` naming the collective and the type.
pub(crate) fn full<T: crate::element::Element>(collective: &'static str) -> Result<()> {
    T::KIND.check_full(collective)
}
