//! Which lane a lane reads: the source-lane rules of the shuffles and of seed 000's transpose,
//! shared by the validated API (to mark undefined lanes) and every backend that computes lanes.

use crate::backend::Shfl;
use crate::width::WarpWidth;

/// The lane a shuffle reads, as CUDA defines it for every kind (HIP's `__shfl` does not reduce
/// an index modulo the width; the device layer does, so both vendors agree with this).
pub fn shfl_source(kind: Shfl, lane: u32, arg: u32, width: u32) -> u32 {
    let base = lane & !(width - 1);
    match kind {
        Shfl::Idx => base + (arg & (width - 1)),
        Shfl::Up => {
            if lane - base >= arg {
                lane - arg
            } else {
                lane
            }
        }
        Shfl::Down => {
            if lane - base + arg < width {
                lane + arg
            } else {
                lane
            }
        }
        Shfl::Xor => {
            let j = lane ^ arg;
            if j >= base + width { lane } else { j }
        }
    }
}

/// The lane whose stored value lane `lane` reads in seed 000's transpose: the warp seen as
/// rows of 8, written row-major and read column-major (4x8 at 32 lanes, 8x8 at 64).
pub fn transpose_source(lane: u32, width: WarpWidth) -> u32 {
    let rows = width.lanes() / 8;
    (lane % rows) * 8 + lane / rows
}
