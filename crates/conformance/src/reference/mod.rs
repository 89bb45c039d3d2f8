//! Sequential definitions of every primitive and collective, written from docs/SEMANTICS.md
//! independently of the CPU oracle (no `wavekit::cpu`, no `Element::combine`), so a bug in
//! either shows up as a conformance mismatch.

mod arg_reduce;
mod by_key;
mod device;
mod ops;
mod partition;
mod runs;
mod sort;
mod warp;

pub use arg_reduce::*;
pub use by_key::{heads, reduce_by_key, scan_by_key};
pub use device::*;
pub use ops::{apply, bfly, bfly_pow2, group_reduce, identity, kogge_stone, kogge_stone_with, mul};
pub use partition::{partition, partition_reversed, partition3, partition3_reversed};
pub use runs::runs;
pub use sort::*;
pub use warp::*;
