// Constants of the canonical combining order; mirrors crates/core/src/canonical.rs
// (docs/SEMANTICS.md "Canonical combining order").
#pragma once

#include "width.h"

#define WK_REDUCE_TILE_LANES 256
#define WK_REDUCE_ITEMS_PER_LANE 16
#define WK_REDUCE_TILE (WK_REDUCE_TILE_LANES * WK_REDUCE_ITEMS_PER_LANE)

#define WK_SCAN_TILE_THREADS 256
#define WK_SCAN_ITEMS_PER_THREAD 16
#define WK_SCAN_TILE (WK_SCAN_TILE_THREADS * WK_SCAN_ITEMS_PER_THREAD)
// Tiles whose prefixes advance together in the 16-bit floats' device scan (SEMANTICS step 5).
#define WK_SCAN_HALF_GROUP 4

#define WK_MAX_BLOCK 1024
#define WK_MAX_GROUPS (WK_MAX_BLOCK / WK_LOGICAL_GROUP)
#define WK_MAX_VECTOR WK_LOGICAL_GROUP

// Bytes one lane loads at once in a device-reduce tile: V = 16 / sizeof(T) elements.
#define WK_REDUCE_VECTOR_BYTES 16
