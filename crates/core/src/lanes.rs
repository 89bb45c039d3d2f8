//! Which lane a lane reads: the source-lane rules of the shuffles and of seed 000's transpose,
//! shared by the validated API (to mark undefined lanes) and every backend that computes lanes.

use crate::backend::Shfl;
use crate::width::WarpWidth;

/// The lane a shuffle reads, as CUDA defines it for every kind (HIP's `__shfl` does not reduce
/// an index modulo the width; the device layer does, so both vendors agree with this).
///
/// `width` is a power of two (the validated API checks it against the warp first). For any
/// other width, 0 included, there is no segment to read from and the lane reads itself; no
/// argument overflows, whatever `lane` and `arg` are.
pub fn shfl_source(kind: Shfl, lane: u32, arg: u32, width: u32) -> u32 {
    if !width.is_power_of_two() {
        return lane;
    }
    let base = lane & !(width - 1);
    // Offsets within the segment, in u64 so that no lane or argument can overflow.
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

    const KINDS: [Shfl; 4] = [Shfl::Idx, Shfl::Up, Shfl::Down, Shfl::Xor];

    #[test]
    fn invalid_widths_read_the_lane_itself() {
        for kind in KINDS {
            for width in [0, 3, 12, u32::MAX] {
                assert_eq!(shfl_source(kind, 5, 3, width), 5, "{kind:?} width {width}");
            }
        }
    }

    #[test]
    fn extreme_lanes_and_arguments_do_not_overflow() {
        assert_eq!(shfl_source(Shfl::Down, 31, u32::MAX, 32), 31);
        assert_eq!(shfl_source(Shfl::Up, 0, u32::MAX, 64), 0);
        assert_eq!(shfl_source(Shfl::Xor, u32::MAX, 1, 64), u32::MAX - 1);
        assert_eq!(shfl_source(Shfl::Idx, u32::MAX, u32::MAX, 64), u32::MAX);
        // The ordinary rules are unchanged.
        assert_eq!(shfl_source(Shfl::Down, 30, 1, 32), 31);
        assert_eq!(shfl_source(Shfl::Down, 31, 1, 32), 31);
        assert_eq!(shfl_source(Shfl::Up, 33, 2, 32), 33);
        assert_eq!(shfl_source(Shfl::Xor, 3, 4, 4), 3);
        assert_eq!(shfl_source(Shfl::Idx, 37, 35, 32), 35);
    }
}
