//! CUDA-only rows of the balanced SpMV kernel in other shapes against its default launch (the
//! partition derived on every call, six blocks an SM) in the same run on the bench's SpMV
//! matrices: the partition prepared once, four blocks an SM, other chunk sizes, the vector
//! kernel, every row folded by a group (no short rows a thread each), no rows folded by quads,
//! and chunks of the merge path (rows and nonzeros together, the planned launch's, so also on a
//! matrix whose second half of rows is empty). Every result is checked bit for bit against the
//! reference before and after it is timed.

use super::ffi;
use super::timer::{DeviceTimer, check};
use super::{inp, out, scratch};
use crate::case::{Case, CaseResult, Measured, Refused, check_all, size_of};
use crate::cases::{RowLengths, spmv_input};
use crate::timing::Harness;
use wavekit::Backend;
use wavekit::cuda::CudaBackend;
use wavekit::element::ElemKind;
use wavekit::gpu::GpuRuntime;
use wavekit::gpu::ffi as wk;
use wavekit_conformance::reference;

/// The row code's bit for a launch without the row_begin pass, its partition left in
/// the scratch by an earlier call on the same matrix.
const PREPARED: u32 = 256;
/// The row code's bit for every row folded by a group of V lanes (no short rows a
/// thread each).
const GROUPS_ONLY: u32 = 512;
/// The row code's bit for chunks of the merge path: a block owns the rows that start
/// in its share of rows and nonzeros together (not of nonzeros alone), each still folded whole
/// in the documented order.
const MERGE_PATH: u32 = 1024;

/// The row code's bit for no row folded by a quad of lanes (rows of up to 8 items a
/// thread each, the rest by groups of V lanes: the chunk kernel before the quads).
const NO_QUADS: u32 = 2048;

/// One row: the SpMV of `kind` rows in shape `variant` (csrc/bench/row_codes.h's code:
/// 1 the vector kernel, 4 four blocks an SM, log2 of the chunk times 16, `PREPARED`,
/// `GROUPS_ONLY`, `MERGE_PATH`, `NO_QUADS`).
macro_rules! shape_case {
    ($name:literal, $kind:expr, $variant:expr) => {
        Case {
            collective: $name,
            elem: "f32",
            run: |b, h, n| spmv_shape(b, h, n, $kind, $variant),
        }
    };
}

pub fn cases() -> Vec<Case<CudaBackend>> {
    use RowLengths::{PowerLaw, Regular, RegularThenEmpty};
    vec![
        shape_case!("spmv regular 8..64 partition prepared", Regular, PREPARED),
        shape_case!("spmv power-law partition prepared", PowerLaw, PREPARED),
        shape_case!(
            "spmv regular 8..64 prepared, rows a group each",
            Regular,
            PREPARED | GROUPS_ONLY
        ),
        shape_case!(
            "spmv power-law prepared, rows a group each",
            PowerLaw,
            PREPARED | GROUPS_ONLY
        ),
        shape_case!("spmv regular 8..64 merge-path", Regular, MERGE_PATH),
        shape_case!("spmv power-law merge-path", PowerLaw, MERGE_PATH),
        shape_case!(
            "spmv regular 8..64 merge-path prepared",
            Regular,
            MERGE_PATH | PREPARED
        ),
        shape_case!(
            "spmv power-law merge-path prepared",
            PowerLaw,
            MERGE_PATH | PREPARED
        ),
        shape_case!(
            "spmv regular 8..64 merge-path prepared, no quads",
            Regular,
            MERGE_PATH | PREPARED | NO_QUADS
        ),
        shape_case!(
            "spmv power-law merge-path prepared, no quads",
            PowerLaw,
            MERGE_PATH | PREPARED | NO_QUADS
        ),
        shape_case!(
            "spmv regular 8..64 merge-path prepared chunk=4096",
            Regular,
            MERGE_PATH | PREPARED | (12 << 4)
        ),
        shape_case!(
            "spmv power-law merge-path prepared chunk=4096",
            PowerLaw,
            MERGE_PATH | PREPARED | (12 << 4)
        ),
        shape_case!(
            "spmv regular, then empty rows, partition prepared",
            RegularThenEmpty,
            PREPARED
        ),
        shape_case!(
            "spmv regular, then empty rows, merge-path prepared",
            RegularThenEmpty,
            MERGE_PATH | PREPARED
        ),
        shape_case!("spmv regular 8..64 blocks=4", Regular, 4),
        shape_case!("spmv regular 8..64 vector kernel", Regular, 1),
        shape_case!("spmv regular 8..64 chunk=512", Regular, 9 << 4),
        shape_case!("spmv regular 8..64 chunk=2048", Regular, 11 << 4),
        shape_case!("spmv regular 8..64 chunk=4096", Regular, 12 << 4),
        shape_case!("spmv power-law blocks=4", PowerLaw, 4),
        shape_case!("spmv power-law chunk=512", PowerLaw, 9 << 4),
        shape_case!("spmv power-law chunk=2048", PowerLaw, 11 << 4),
        shape_case!("spmv power-law chunk=4096", PowerLaw, 12 << 4),
    ]
}

/// The balanced SpMV in shape `variant` against the default shape.
fn spmv_shape(
    b: &CudaBackend,
    h: &Harness,
    n: usize,
    kind: RowLengths,
    variant: u32,
) -> CaseResult {
    let (row_offsets, cols, vals, x) = spmv_input(n, kind);
    let rows = x.len();
    let vector = reference::auto_vector(n, rows);
    let want = reference::spmv(&row_offsets, &cols, &vals, &x, vector);
    let (ro, cb, vb, xb) = (
        b.upload(&row_offsets)?,
        b.upload(&cols)?,
        b.upload(&vals)?,
        b.upload(&x)?,
    );
    let y = std::cell::RefCell::new(b.alloc::<f32>(rows)?);
    // The merge path's chunks count rows and nonzeros: its scratch is sized for both.
    let units = if variant & MERGE_PATH != 0 {
        n + rows
    } else {
        n
    };
    // SAFETY: a pure size computation.
    let bytes = unsafe {
        (b.runtime().launchers().scratch_bytes)(wk::ALGO_SPMV, ElemKind::F32 as u32, units as u64)
    };
    let sc = scratch(b, bytes)?;
    let timer = DeviceTimer::new(b)?;
    let (r, c, v, xp, s_ptr, yp) = (
        inp::<_, u32>(&ro),
        inp::<_, u32>(&cb),
        inp::<_, f32>(&vb),
        inp::<_, f32>(&xb),
        out::<_, std::ffi::c_void>(&sc),
        out::<_, f32>(&*y.borrow()),
    );
    let run = |variant: u32| {
        // SAFETY: live buffers: rows + 1 offsets, n columns and values, rows x and y
        // entries; the backend's stream.
        move |s| unsafe {
            ffi::wk_bench_spmv_b(
                s,
                r,
                c,
                v,
                xp,
                rows as u64,
                n as u64,
                vector,
                s_ptr,
                bytes,
                yp,
                variant,
            )
        }
    };
    let verify = |b: &CudaBackend| -> Result<(), Refused> {
        let mut y = y.borrow_mut();
        check_all(&want, &b.download(&*y)?)?;
        // Poisoned again, so the next run must write every row to pass.
        Ok(b.write(&mut *y, &vec![f32::NAN; rows])?)
    };
    if variant & PREPARED != 0 {
        // The partition the prepared launches reuse, from a full launch on the same scratch.
        b.runtime().make_current()?;
        check(b, run(variant & !PREPARED)(timer.stream()), "spmv shape")?;
    }
    let (timing, default) = timer.shape_against_default(h, "spmv shape", variant, run, verify)?;
    Ok(Measured {
        timing,
        bytes: size_of::<f32>(n + 2 * rows) + size_of::<u32>(n + rows + 1),
        input_bytes: size_of::<f32>(n) + size_of::<u32>(n),
        baseline: Some(default),
        read_only: false,
    })
}
