//! Constants that define the canonical combining order of every float collective.
//! csrc/wavekit/canonical.h mirrors them; tests/canonical_constants.rs checks they agree.
//! The order itself is written down in docs/SEMANTICS.md.

use crate::element::Element;
use crate::width::LOGICAL_GROUP;

/// Logical lanes (8 groups of 32) that one device-reduce tile is spread over.
pub const REDUCE_TILE_LANES: usize = 256;
/// Items each logical lane folds sequentially within a device-reduce tile.
pub const REDUCE_ITEMS_PER_LANE: usize = 16;
/// Elements in one device-reduce tile, for every element type.
pub const REDUCE_TILE: usize = REDUCE_TILE_LANES * REDUCE_ITEMS_PER_LANE;

/// Threads of one device-scan tile.
pub const SCAN_TILE_THREADS: usize = 256;
/// Consecutive items each thread of a device-scan tile owns.
pub const SCAN_ITEMS_PER_THREAD: usize = 16;
/// Elements in one device-scan tile, for every element type.
pub const SCAN_TILE: usize = SCAN_TILE_THREADS * SCAN_ITEMS_PER_THREAD;
/// Tiles whose prefixes advance together in the device scan of the 16-bit floats (SEMANTICS
/// "device_scan", step 5): a look-back then chains one combine per group, not per tile.
pub const SCAN_HALF_GROUP: usize = 4;

/// Largest block for block_reduce, as on every CUDA and HIP device.
pub const MAX_BLOCK: u32 = 1024;
/// Logical groups in the largest block (the group-level butterfly spans at most this many).
pub const MAX_GROUPS: u32 = MAX_BLOCK / LOGICAL_GROUP;

/// Largest vector (lanes per segment or CSR row) for segmented reduce and SpMV.
pub const MAX_VECTOR: u32 = LOGICAL_GROUP;

/// Consecutive elements a lane loads as one 16-byte vector in a device-reduce tile:
/// 4 for 32-bit types, 2 for 64-bit types.
pub fn reduce_vector_items<T: Element>() -> usize {
    16 / T::KIND.size()
}
