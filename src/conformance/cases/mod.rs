//! Every conformance case: `pub fn name<B: Backend>(b: &B, scale: Scale) -> Result<(), String>`.
//! The list the registry and the test macro use is `conformance_cases!` in ../mod.rs.

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

mod atomics;
mod balance;
mod buffers;
mod device;
mod errors;
mod matching;
mod segmented;
mod shuffles;
mod tiles;
mod votes;
mod warp_collectives;

pub use atomics::*;
pub use balance::*;
pub use buffers::*;
pub use device::*;
pub use errors::*;
pub use matching::*;
pub use segmented::*;
pub use shuffles::*;
pub use tiles::*;
pub use votes::*;
pub use warp_collectives::*;
