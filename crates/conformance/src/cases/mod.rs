//! Every conformance case: `pub fn name<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String>`.
//! One file per primitive, named as its kernel in csrc/kernels/ and its section in
//! docs/SEMANTICS.md, holding its cases and its error cases; buffers.rs holds the buffer round
//! trips and empty inputs, errors.rs the errors no single primitive owns. The list the registry
//! and the test macro use is `conformance_cases!` in ../lib.rs.

/// Calls `f::<T, _>(args…)?` for each of the six element types.
macro_rules! each_type {
    ($f:ident($($arg:expr),*)) => {{
        $f::<i32, _>($($arg),*)?;
        $f::<u32, _>($($arg),*)?;
        $f::<i64, _>($($arg),*)?;
        $f::<u64, _>($($arg),*)?;
        $f::<f32, _>($($arg),*)?;
        $f::<f64, _>($($arg),*)?;
    }};
}

/// Calls `$f::<T, _>(args)` for the two 16-bit floats, for the collectives that take them
/// (docs/COLLECTIVES.md "Half precision").
macro_rules! each_half {
    ($f:ident($($arg:expr),*)) => {{
        $f::<wavekit_core::f16, _>($($arg),*)?;
        $f::<wavekit_core::bf16, _>($($arg),*)?;
    }};
}

mod activemask;
mod arg_reduce;
mod atomic_agg_inc;
mod block_reduce;
mod buffers;
mod by_key;
mod compact;
mod count_if;
mod device_reduce;
mod device_scan;
mod errors;
mod half;
mod histogram;
mod r#match;
mod partition;
mod partition_reversed;
mod runs;
mod segmented_reduce;
mod segmented_sort;
mod shfl;
mod sort;
mod spmv;
mod syncwarp_transpose;
mod tile;
mod top_k;
mod vote;
mod warp_reduce;
mod warp_reduce_sync;
mod warp_scan;

pub use activemask::*;
pub use arg_reduce::*;
pub use atomic_agg_inc::*;
pub use block_reduce::*;
pub use buffers::*;
pub use by_key::*;
pub use compact::*;
pub use count_if::*;
pub use device_reduce::*;
pub use device_scan::*;
pub use errors::*;
pub use half::*;
pub use histogram::*;
pub use r#match::*;
pub use partition::*;
pub use partition_reversed::*;
pub use runs::*;
pub use segmented_reduce::*;
pub use segmented_sort::*;
pub use shfl::*;
pub use sort::*;
pub use spmv::*;
pub use syncwarp_transpose::*;
pub use tile::*;
pub use top_k::*;
pub use vote::*;
pub use warp_reduce::*;
pub use warp_reduce_sync::*;
pub use warp_scan::*;
