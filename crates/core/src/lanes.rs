//! Which lane a lane reads: the source-lane rules of the shuffles and of seed 000's transpose,
//! shared by the validated API (to mark undefined lanes) and every backend that computes lanes.

use crate::vocab::Shfl;
use crate::width::WarpWidth;

/// The shuffle argument as the hardware reads it: the low log2(W) bits of its two's complement
/// (W the warp width), a lane index or offset in `0..W`.
///
/// CUDA's `shfl.sync` reads only bits 4:0 of its operand `b` (PTX ISA, "shfl.sync"), so
/// `__shfl_sync(m, v, -1)` names lane 31 and `__shfl_down_sync(m, v, 33)` moves by 1. AMD has no
/// such field; wavekit defines the rule for every vendor in terms of the warp width, and the
/// device layer (csrc/wavekit/prims.h) applies it before any arch sees the argument.
///
/// ```
/// use wavekit_core::lanes::hw_shfl_arg;
/// use wavekit_core::WarpWidth;
/// assert_eq!(hw_shfl_arg(-1, WarpWidth::W32), 31);
/// assert_eq!(hw_shfl_arg(33, WarpWidth::W32), 1);
/// assert_eq!(hw_shfl_arg(33, WarpWidth::W64), 33);
/// assert_eq!(hw_shfl_arg(i32::MIN, WarpWidth::W64), 0);
/// ```
pub fn hw_shfl_arg(arg: i32, warp: WarpWidth) -> u32 {
    (arg as u32) & (warp.lanes() - 1)
}

/// The lane a shuffle reads, as CUDA defines it for every kind and any argument (HIP's
/// `__shfl` neither truncates the argument nor reduces an index modulo the width; the device
/// layer does both, so both vendors agree with this).
///
/// `lane` is the caller's lane in a warp of `warp` lanes; `arg` is first reduced to
/// [`hw_shfl_arg`], then the table of docs/SEMANTICS.md "shfl" applies. `width` is a power of
/// two (the validated API checks it against the warp first). For any other width, 0 included,
/// there is no segment to read from and the lane reads itself; nothing overflows, whatever
/// `lane` is.
///
/// ```
/// use wavekit_core::lanes::shfl_source;
/// use wavekit_core::{Shfl, WarpWidth::W32};
/// // __shfl_sync(m, v, -1, 8) from lane 10 reads lane 15 (srcLane mod width in its segment).
/// assert_eq!(shfl_source(Shfl::Idx, 10, -1, 8, W32), 15);
/// // __shfl_down_sync(m, v, 32, 32): delta 32 is 0 in five bits, every lane reads itself.
/// assert_eq!(shfl_source(Shfl::Down, 4, 32, 32, W32), 4);
/// // __shfl_up_sync(m, v, 33, 32): delta 33 is 1.
/// assert_eq!(shfl_source(Shfl::Up, 4, 33, 32, W32), 3);
/// ```
pub fn shfl_source(kind: Shfl, lane: u32, arg: i32, width: u32, warp: WarpWidth) -> u32 {
    if !width.is_power_of_two() {
        return lane;
    }
    let arg = hw_shfl_arg(arg, warp);
    let base = lane & !(width - 1);
    // Offsets within the segment, in u64 so that no lane can overflow.
    let (pos, arg64, w) = (u64::from(lane - base), u64::from(arg), u64::from(width));
    match kind {
        Shfl::Idx => base + (arg & (width - 1)),
        Shfl::Up => {
            if pos >= arg64 {
                lane - arg
            } else {
                lane
            }
        }
        Shfl::Down => {
            if pos + arg64 < w {
                lane + arg
            } else {
                lane
            }
        }
        Shfl::Xor => {
            let j = lane ^ arg;
            if u64::from(j) >= u64::from(base) + w {
                lane
            } else {
                j
            }
        }
    }
}

/// The lane whose stored value lane `lane` reads in seed 000's transpose: the warp seen as
/// rows of 8, written row-major and read column-major (4x8 at 32 lanes, 8x8 at 64).
pub fn transpose_source(lane: u32, width: WarpWidth) -> u32 {
    let rows = width.lanes() / 8;
    (lane % rows) * 8 + lane / rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::width::WarpWidth::{W32, W64};

    const KINDS: [Shfl; 4] = [Shfl::Idx, Shfl::Up, Shfl::Down, Shfl::Xor];

    #[test]
    fn invalid_widths_read_the_lane_itself() {
        for kind in KINDS {
            for width in [0, 3, 12, u32::MAX] {
                assert_eq!(
                    shfl_source(kind, 5, 3, width, W32),
                    5,
                    "{kind:?} width {width}"
                );
            }
        }
    }

    #[test]
    fn extreme_lanes_and_arguments_do_not_overflow() {
        assert_eq!(shfl_source(Shfl::Down, 31, i32::MAX, 32, W32), 31);
        assert_eq!(shfl_source(Shfl::Up, 0, i32::MIN, 64, W64), 0);
        assert_eq!(shfl_source(Shfl::Xor, u32::MAX, 1, 64, W64), u32::MAX - 1);
        assert_eq!(shfl_source(Shfl::Idx, u32::MAX, -1, 64, W64), u32::MAX);
        // The ordinary rules are unchanged.
        assert_eq!(shfl_source(Shfl::Down, 30, 1, 32, W32), 31);
        assert_eq!(shfl_source(Shfl::Down, 31, 1, 32, W32), 31);
        assert_eq!(shfl_source(Shfl::Up, 33, 2, 32, W64), 33);
        assert_eq!(shfl_source(Shfl::Xor, 3, 4, 4, W32), 3);
        assert_eq!(shfl_source(Shfl::Idx, 37, 35, 32, W64), 35);
    }

    /// Values worked out by hand from the PTX ISA's shfl.sync pseudo-code (bval = b[4:0];
    /// `__shfl_up_sync` packs c = (32 - width) << 8, the others also set the clamp to 31).
    #[test]
    fn arguments_past_the_warp_use_their_low_bits() {
        // srcLane -1 at width 16: bval 31, j = minLane | (31 & 15) = base + 15.
        assert_eq!(shfl_source(Shfl::Idx, 3, -1, 16, W32), 15);
        assert_eq!(shfl_source(Shfl::Idx, 20, -1, 16, W32), 31);
        // srcLane -17 = ...101111: 15 at width 16, 47 mod 64 = 47 -> 15 at width 16 on W64 too.
        assert_eq!(shfl_source(Shfl::Idx, 40, -17, 16, W64), 47);
        // delta 32 at W32 is 0; at W64 it is 32 (past a 32-lane segment: own value).
        assert_eq!(shfl_source(Shfl::Down, 7, 32, 32, W32), 7);
        assert_eq!(shfl_source(Shfl::Down, 7, 32, 32, W64), 7);
        assert_eq!(shfl_source(Shfl::Down, 7, 32, 64, W64), 39);
        // delta 33: 1 at W32.
        assert_eq!(shfl_source(Shfl::Down, 7, 33, 32, W32), 8);
        assert_eq!(shfl_source(Shfl::Up, 7, 33, 32, W32), 6);
        // delta -1 (0xffffffff as CUDA's unsigned delta): 31 at W32, 63 at W64.
        assert_eq!(shfl_source(Shfl::Up, 31, -1, 32, W32), 0);
        assert_eq!(shfl_source(Shfl::Up, 30, -1, 32, W32), 30);
        assert_eq!(shfl_source(Shfl::Down, 0, -1, 64, W64), 63);
        // laneMask 0x21 at W32 is 1.
        assert_eq!(shfl_source(Shfl::Xor, 6, 0x21, 8, W32), 7);
        // laneMask -1 at W32 is 31: lane 4 at width 8 reads 27, past its segment: itself.
        assert_eq!(shfl_source(Shfl::Xor, 4, -1, 8, W32), 4);
        // ... and lane 28 reads lane 3, an earlier segment, which the hardware allows.
        assert_eq!(shfl_source(Shfl::Xor, 28, -1, 8, W32), 3);
    }
}
