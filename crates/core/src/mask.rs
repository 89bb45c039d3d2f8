//! `LaneMask`: a set of lanes backed by 64 bits that knows its warp width.

use crate::error::{Result, WavekitError};
use crate::width::WarpWidth;
use std::fmt;

/// A set of lanes of one warp, as CUDA's `unsigned mask` arguments, that knows its warp width:
/// a mask for 32 lanes is refused by a 64-lane backend instead of being read as half a warp.
///
/// ```
/// use wavekit::prelude::*;
///
/// let w = WarpWidth::W32;
/// let evens = LaneMask::from_fn(w, |l| l % 2 == 0);
/// assert_eq!(evens.count(), 16);
/// assert_eq!(evens.bits(), 0x5555_5555);
/// assert!(evens.contains(4) && !evens.contains(5));
/// assert_eq!(evens.complement(), LaneMask::from_fn(w, |l| l % 2 == 1));
/// assert_eq!(evens.intersect(LaneMask::lt(4, w)?).lanes().collect::<Vec<_>>(), [0, 2]);
/// assert_eq!(LaneMask::single(3, w)?.first(), Some(3));
/// assert_eq!(LaneMask::full(w).count(), 32);
/// assert!(LaneMask::empty(w).is_empty());
/// // Bits past the width are an error, never dropped.
/// assert!(LaneMask::from_bits(1 << 40, w).is_err());
/// assert_eq!(LaneMask::from_bits(1 << 40, WarpWidth::W64)?.first(), Some(40));
/// assert_eq!(LaneMask::le(2, w)?.to_string(), format!("###{}", ".".repeat(29)));
/// # Ok::<(), wavekit::WavekitError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaneMask {
    bits: u64,
    width: WarpWidth,
}

impl LaneMask {
    /// A mask from raw bits; bits beyond the width are an error, never silently dropped.
    ///
    /// # Errors
    /// `MaskBeyondWidth` when a bit names a lane past `width`.
    pub fn from_bits(bits: u64, width: WarpWidth) -> Result<Self> {
        if bits & !width.full_bits() != 0 {
            return Err(WavekitError::MaskBeyondWidth {
                mask: bits,
                width: width.lanes(),
            });
        }
        Ok(LaneMask { bits, width })
    }

    /// Every lane of the warp.
    pub fn full(width: WarpWidth) -> Self {
        LaneMask {
            bits: width.full_bits(),
            width,
        }
    }

    /// No lane.
    pub fn empty(width: WarpWidth) -> Self {
        LaneMask { bits: 0, width }
    }

    /// The mask of lane `lane` alone.
    ///
    /// # Errors
    /// `LaneOutOfRange` when `lane` is not below the width.
    pub fn single(lane: u32, width: WarpWidth) -> Result<Self> {
        check_lane(lane, width)?;
        Ok(LaneMask {
            bits: 1u64 << lane,
            width,
        })
    }

    /// Lanes whose index satisfies `keep`.
    pub fn from_fn(width: WarpWidth, keep: impl Fn(u32) -> bool) -> Self {
        let bits = (0..width.lanes())
            .filter(|&l| keep(l))
            .fold(0u64, |m, l| m | 1u64 << l);
        LaneMask { bits, width }
    }

    /// Lanes below `lane` (CUDA's %lanemask_lt).
    ///
    /// # Errors
    /// `LaneOutOfRange` when `lane` is not below the width.
    pub fn lt(lane: u32, width: WarpWidth) -> Result<Self> {
        check_lane(lane, width)?;
        Ok(LaneMask {
            bits: (1u64 << lane) - 1,
            width,
        })
    }

    /// Lanes at or below `lane` (CUDA's %lanemask_le).
    ///
    /// # Errors
    /// `LaneOutOfRange` when `lane` is not below the width.
    pub fn le(lane: u32, width: WarpWidth) -> Result<Self> {
        Ok(Self::lt(lane, width)?.with(lane))
    }

    /// Lanes above `lane` (CUDA's %lanemask_gt).
    ///
    /// # Errors
    /// `LaneOutOfRange` when `lane` is not below the width.
    pub fn gt(lane: u32, width: WarpWidth) -> Result<Self> {
        Ok(Self::le(lane, width)?.complement())
    }

    /// Lanes at or above `lane` (CUDA's %lanemask_ge).
    ///
    /// # Errors
    /// `LaneOutOfRange` when `lane` is not below the width.
    pub fn ge(lane: u32, width: WarpWidth) -> Result<Self> {
        Ok(Self::lt(lane, width)?.complement())
    }

    /// The mask as bits, lane 0 the lowest.
    pub fn bits(self) -> u64 {
        self.bits
    }

    /// The warp width the mask was built for.
    pub fn width(self) -> WarpWidth {
        self.width
    }

    /// `true` when `lane` is in the mask (`false` for a lane past the width).
    pub fn contains(self, lane: u32) -> bool {
        lane < self.width.lanes() && self.bits >> lane & 1 == 1
    }

    /// Lanes in the mask (CUDA's `__popc(mask)`).
    pub fn count(self) -> u32 {
        self.bits.count_ones()
    }

    /// `true` when no lane is in the mask.
    pub fn is_empty(self) -> bool {
        self.bits == 0
    }

    /// Lowest lane in the mask (the leader of CUDA's `__ffs(mask) - 1`).
    pub fn first(self) -> Option<u32> {
        (self.bits != 0).then(|| self.bits.trailing_zeros())
    }

    /// The lanes in the mask, lowest first.
    pub fn lanes(self) -> impl Iterator<Item = u32> {
        (0..self.width.lanes()).filter(move |&l| self.contains(l))
    }

    /// The lanes of the warp not in the mask.
    pub fn complement(self) -> Self {
        LaneMask {
            bits: !self.bits & self.width.full_bits(),
            width: self.width,
        }
    }

    /// The lanes in both masks (the width is `self`'s).
    pub fn intersect(self, other: LaneMask) -> Self {
        LaneMask {
            bits: self.bits & other.bits,
            width: self.width,
        }
    }

    fn with(self, lane: u32) -> Self {
        LaneMask {
            bits: self.bits | 1u64 << lane,
            width: self.width,
        }
    }
}

fn check_lane(lane: u32, width: WarpWidth) -> Result<()> {
    if lane < width.lanes() {
        Ok(())
    } else {
        Err(WavekitError::LaneOutOfRange {
            lane,
            width: width.lanes(),
        })
    }
}

impl fmt::Debug for LaneMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LaneMask({:#x}/{})", self.bits, self.width)
    }
}

impl fmt::Display for LaneMask {
    /// One character a lane, lane 0 first: `#` in the mask, `.` outside.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for l in 0..self.width.lanes() {
            f.write_str(if self.contains(l) { "#" } else { "." })?;
        }
        Ok(())
    }
}
