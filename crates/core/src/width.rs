//! Warp widths: the only place a literal 32 or 64 lane count is spelled.

use crate::error::{Result, WavekitError};
use std::fmt;

/// Lanes in one hardware warp (NVIDIA, AMD wave32) or wavefront (AMD wave64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WarpWidth {
    W32,
    W64,
}

/// Lanes in the logical group that every float collective's combining tree is defined on,
/// whatever the hardware width (see docs/SEMANTICS.md, "Canonical combining order").
pub const LOGICAL_GROUP: u32 = 32;

impl WarpWidth {
    pub const ALL: [WarpWidth; 2] = [WarpWidth::W32, WarpWidth::W64];

    /// The width of `lanes` lanes.
    ///
    /// # Errors
    /// `UnsupportedWarpWidth` for anything but 32 or 64.
    pub fn new(lanes: u32) -> Result<Self> {
        match lanes {
            32 => Ok(WarpWidth::W32),
            64 => Ok(WarpWidth::W64),
            other => Err(WavekitError::UnsupportedWarpWidth(other)),
        }
    }

    pub const fn lanes(self) -> u32 {
        match self {
            WarpWidth::W32 => 32,
            WarpWidth::W64 => 64,
        }
    }

    /// Bits set for every lane of the warp.
    pub const fn full_bits(self) -> u64 {
        match self {
            WarpWidth::W32 => u32::MAX as u64,
            WarpWidth::W64 => u64::MAX,
        }
    }

    /// Checks a sub-width for shuffles and warp collectives: a power of two in 1..=lanes.
    ///
    /// # Errors
    /// `InvalidSubWidth` naming `width` and the warp.
    pub fn check_sub_width(self, width: u32) -> Result<u32> {
        if width.is_power_of_two() && width <= self.lanes() {
            Ok(width)
        } else {
            Err(WavekitError::InvalidSubWidth {
                width,
                warp: self.lanes(),
            })
        }
    }

    /// Checks a cooperative-group tile size: a power of two in 2..=lanes.
    ///
    /// # Errors
    /// `InvalidTileSize` naming `tile` and the warp.
    pub fn check_tile(self, tile: u32) -> Result<u32> {
        if tile.is_power_of_two() && tile >= 2 && tile <= self.lanes() {
            Ok(tile)
        } else {
            Err(WavekitError::InvalidTileSize {
                tile,
                warp: self.lanes(),
            })
        }
    }
}

impl fmt::Display for WarpWidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.lanes())
    }
}
