//! The seeds' pitfall kernels (csrc/simt/pitfalls), wrong and fixed, run on the executor. They
//! exist to show what the executor detects; tests/simt_pitfalls.rs checks them.

use super::ffi::{self, PitfallFns};
use super::session::Session;
use wavekit_core::error::{Result, WavekitError};
use wavekit_core::width::WarpWidth;

fn fns(width: WarpWidth) -> &'static PitfallFns {
    match width {
        WarpWidth::W32 => &ffi::PITFALLS_W32,
        WarpWidth::W64 => &ffi::PITFALLS_W64,
    }
}

fn multiple(what: &'static str, len: usize, of: usize) -> Result<()> {
    if len == 0 || !len.is_multiple_of(of) {
        return Err(WavekitError::LengthMismatch {
            what,
            expected: len.div_ceil(of).max(1) * of,
            got: len,
        });
    }
    Ok(())
}

/// Threads of seed 001's block, values per sum and sums per iteration.
pub const SPMV_BLOCK: usize = 256;
pub const SPMV_REDUCE: usize = 8;

/// Seed 001's vector reduce: one block of 256 threads, `x.len() / 256` iterations, each
/// writing 32 sums of 8 consecutive values times `alpha`. `fixed` moves the second
/// `__syncthreads` out of the branch.
pub fn spmv_reduce(
    s: &Session,
    width: WarpWidth,
    fixed: bool,
    x: &[i32],
    alpha: i32,
) -> Result<Vec<i32>> {
    multiple("seed 001 input (a multiple of 256)", x.len(), SPMV_BLOCK)?;
    let iters = x.len() / SPMV_BLOCK;
    let mut y = vec![0i32; x.len() / SPMV_REDUCE];
    // SAFETY: x holds iters * 256 values and y iters * 32, as the kernel reads and writes.
    let code = unsafe {
        (fns(width).spmv_reduce)(
            s.stream(),
            fixed as i32,
            x.as_ptr(),
            y.as_mut_ptr(),
            alpha,
            iters as i32,
        )
    };
    Session::check(code, "pitfall_spmv_reduce")?;
    Ok(y)
}

/// Seed 000's `__activemask` warp sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActivemaskVariant {
    /// The mask is `__activemask()` taken inside `if (tid < n)`.
    Wrong = 0,
    /// The seed's fix as printed: a ballot mask, but `shfl_down` still reads past `n`.
    SeedFix = 1,
    /// A ballot mask, and shuffles that read only lanes inside it.
    Fixed = 2,
}

/// One block of `input.len()` threads (a multiple of the width); returns one sum per warp of
/// the inputs of its threads below `n`.
pub fn activemask_sum(
    s: &Session,
    width: WarpWidth,
    variant: ActivemaskVariant,
    input: &[i32],
    n: u32,
) -> Result<Vec<i32>> {
    let lanes = width.lanes() as usize;
    multiple(
        "activemask input (a multiple of the warp width)",
        input.len(),
        lanes,
    )?;
    let mut out = vec![0i32; input.len() / lanes];
    // SAFETY: one thread per input, one output per warp.
    let code = unsafe {
        (fns(width).activemask_sum)(
            s.stream(),
            variant as i32,
            input.as_ptr(),
            out.as_mut_ptr(),
            input.len() as u32,
            n,
        )
    };
    Session::check(code, "pitfall_activemask_sum")?;
    Ok(out)
}

/// Seed 000's shared-memory warp sum with `__syncwarp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncwarpVariant {
    /// `shmem[tid] += shmem[tid + offset]; __syncwarp();`: a race.
    Racy = 0,
    /// The seed's fix as printed: race-free, but `v` starts at 0 and drops `shmem[tid]`.
    SeedFix = 1,
    /// Race-free with `v` starting at `shmem[tid]`.
    Fixed = 2,
}

/// Blocks of two warps over `input` (a multiple of twice the width); one sum per warp.
pub fn syncwarp_sum(
    s: &Session,
    width: WarpWidth,
    variant: SyncwarpVariant,
    input: &[i32],
) -> Result<Vec<i32>> {
    let lanes = width.lanes() as usize;
    multiple(
        "syncwarp input (a multiple of two warps)",
        input.len(),
        2 * lanes,
    )?;
    let mut out = vec![0i32; input.len() / lanes];
    let blocks = (input.len() / (2 * lanes)) as u32;
    // SAFETY: blocks * 2 warps of threads read one input each; one output per warp.
    let code = unsafe {
        (fns(width).syncwarp_sum)(
            s.stream(),
            variant as i32,
            input.as_ptr(),
            out.as_mut_ptr(),
            blocks,
        )
    };
    Session::check(code, "pitfall_syncwarp_sum")?;
    Ok(out)
}

/// Seed 000's `vote_all` with an early return: one block of `a.len()` threads (a multiple of
/// the width); for t < n, `out[t]` is 1 if every `a[u] > 48` over the threads u < n of t's
/// warp. `fixed` takes the mask with a ballot before the return instead of the full mask.
/// Entries at or past `n` keep -1.
pub fn vote_all(s: &Session, width: WarpWidth, fixed: bool, a: &[i32], n: u32) -> Result<Vec<i32>> {
    multiple(
        "vote input (a multiple of the warp width)",
        a.len(),
        width.lanes() as usize,
    )?;
    let mut out = vec![-1i32; a.len()];
    // SAFETY: one thread per element of a and out; threads at or past n write nothing.
    let code = unsafe {
        (fns(width).vote_all)(
            s.stream(),
            fixed as i32,
            a.as_ptr(),
            out.as_mut_ptr(),
            a.len() as u32,
            n,
        )
    };
    Session::check(code, "pitfall_vote_all")?;
    Ok(out)
}

/// Kernels that would hang or read out of bounds on hardware (csrc/simt/pitfalls/hangs.cu).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hang {
    /// Lane 0 waits at `__syncthreads` while the others shuffle with a mask naming it.
    ShuffleAcrossBarrier = 0,
    /// Odd lanes call `any_sync`, even lanes `all_sync`, both with the full mask.
    DifferentCollectives = 1,
    /// Seed 000's reduction over a shared array one warp long: `lane + offset` runs past it.
    SharedPastEnd = 2,
}

/// One warp runs `kind`; returns its per-lane values (undefined where the kernel is wrong).
pub fn hang(s: &Session, width: WarpWidth, kind: Hang, input: &[i32]) -> Result<Vec<i32>> {
    let lanes = width.lanes() as usize;
    if input.len() != lanes {
        return Err(WavekitError::LengthMismatch {
            what: "hang input (one warp)",
            expected: lanes,
            got: input.len(),
        });
    }
    let mut out = vec![0i32; lanes];
    // SAFETY: one warp of threads reads and writes one element each.
    let code =
        unsafe { (fns(width).hang)(s.stream(), kind as i32, input.as_ptr(), out.as_mut_ptr()) };
    Session::check(code, "pitfall_hang")?;
    Ok(out)
}
