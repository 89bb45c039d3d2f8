//! shfl: warp shuffles (idx, up, down, xor) at every sub-width, with arguments inside, at and
//! past the segment, and the arguments CUDA accepts past the warp (negative, the warp width and
//! beyond, `i32::MIN`/`MAX`: the hardware reads their low log2(W) bits), under every mask and
//! launch size; 64-bit types must move whole.

use crate::Scale;
use crate::check::{ok, same_lanes};
use crate::inputs::{masks, pick, sub_widths, thread_counts, values, values_with_specials};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::Shfl;
use wavekit_core::api::WarpPrimitives;
use wavekit_core::element::Element;
use wavekit_core::width::WarpWidth;

/// Arguments inside the segment, at its edge, past it (Idx reduces modulo width; Xor may read
/// an earlier segment), at the warp's last lane, and past the warp: negative, `W` and beyond
/// (the low log2(W) bits are what count, so `W + 1` must act as 1 and `-1` as `W - 1`).
fn args(kind: Shfl, width: u32, w: WarpWidth, scale: Scale) -> Vec<i32> {
    let n = w.lanes() as i32;
    let width = width as i32;
    let mut a = vec![0, 1, width / 2, width - 1, width, width + 1, n / 2, n - 1];
    if kind == Shfl::Idx {
        a.push(2 * width + 1);
        a.push(n - 2);
    }
    a.retain(|&x| x < n);
    let wide = pick(
        scale,
        &[
            -1,
            -width,
            -n - 3,
            n,
            n + 1,
            n + width / 2,
            5 * n + 2,
            i32::MAX,
            i32::MIN,
        ],
        &[-1, n + 1, i32::MIN],
    );
    a.extend(wide);
    a.sort_unstable();
    a.dedup();
    a
}

/// `thorough`: every mask and launch size; otherwise a few, for the other element types.
fn shfl_typed<T: Element, B: RawBackend>(
    b: &B,
    kind: Shfl,
    scale: Scale,
    thorough: bool,
) -> Result<(), String> {
    let w = b.warp_width();
    let mut ms = masks(w, scale);
    let mut counts = thread_counts(w, scale);
    if !thorough {
        ms.retain(|(n, _)| n == "full" || n == "random a" || n == "odd");
        counts.retain(|&c| c == w.lanes() as usize - 1 || c == 3 * w.lanes() as usize + 5);
    }
    for width in sub_widths(w) {
        for arg in args(kind, width, w, scale) {
            for (mname, mask) in &ms {
                for &threads in &counts {
                    let seed = (width as u64) << 40 | u64::from(arg as u32) << 8 | threads as u64;
                    // Distinct values so a wrong source lane shows; specials for the others
                    // so NaN, -0.0 and 64-bit high halves travel too.
                    let vals: Vec<T> = if thorough {
                        values(threads, seed)
                    } else {
                        values_with_specials(threads, seed)
                    };
                    let ctx = format!(
                        "{kind:?} {} width={width} arg={arg} mask={mname} threads={threads}",
                        T::KIND.name()
                    );
                    let got = ok(&ctx, b.shfl(kind, &vals, arg, width, *mask))?;
                    same_lanes(&ctx, &reference::shfl(kind, &vals, arg, width, *mask), &got)?;
                }
            }
        }
    }
    Ok(())
}

fn shfl_all_types<B: RawBackend>(b: &B, kind: Shfl, scale: Scale) -> Result<(), String> {
    shfl_typed::<u32, _>(b, kind, scale, true)?;
    shfl_typed::<u64, _>(b, kind, scale, scale == Scale::Full)?;
    shfl_typed::<i32, _>(b, kind, scale, false)?;
    shfl_typed::<i64, _>(b, kind, scale, false)?;
    shfl_typed::<f32, _>(b, kind, scale, false)?;
    shfl_typed::<f64, _>(b, kind, scale, false)?;
    // 16-bit floats travel widened to a 32-bit word: the high half must not leak back.
    shfl_typed::<wavekit_core::f16, _>(b, kind, scale, false)?;
    shfl_typed::<wavekit_core::bf16, _>(b, kind, scale, false)
}

pub fn shfl_idx<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    shfl_all_types(b, Shfl::Idx, scale)
}

pub fn shfl_up<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    shfl_all_types(b, Shfl::Up, scale)
}

pub fn shfl_down<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    shfl_all_types(b, Shfl::Down, scale)
}

pub fn shfl_xor<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    shfl_all_types(b, Shfl::Xor, scale)
}
