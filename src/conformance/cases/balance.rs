//! Inputs shaped for the GPU launchers' load-balanced paths, which the small cases never reach:
//! SpMV over many nonzero chunks with rows far longer than a block's shared window, runs of
//! empty rows and a row ending exactly on a chunk boundary; and histograms wider than one
//! block's shared memory (counted a slice of bins per block). Every backend must give the
//! reference's bits.

use crate::api::{Collectives, Csr, VectorSize};
use crate::backend::Backend;
use crate::conformance::Scale;
use crate::conformance::check::{eq, ok, same_elems};
use crate::conformance::inputs::{pick, values};
use crate::conformance::reference;
use crate::element::{Element, splitmix};

/// Row lengths: mostly short, every 97th row long (up to `long`), runs of empty rows, and one
/// row that ends at nonzero `boundary` exactly (a chunk edge of the balanced launcher).
fn skewed_rows(nnz: usize, long: usize, boundary: usize, seed: u64) -> Vec<u32> {
    let mut offsets = vec![0u32];
    let mut end = 0usize;
    let mut r = 0u64;
    while end < nnz {
        let x = splitmix(seed ^ r << 8);
        let mut len = match r % 97 {
            0 => long / 2 + (x % (long as u64 / 2 + 1)) as usize,
            5..=9 => 0,
            _ => (x % 24) as usize,
        };
        if end < boundary && end + len > boundary {
            len = boundary - end;
        }
        end = (end + len).min(nnz);
        offsets.push(end as u32);
        r += 1;
    }
    offsets
}

fn spmv_balanced_typed<T: Element, B: Backend>(b: &B, scale: Scale) -> Result<(), String> {
    // (nonzeros, longest rows): past the 4096-product window at full scale, and many chunks.
    let shapes = pick(
        scale,
        &[(30_000usize, 9_000usize), (200_000, 20_000)],
        &[(12_000usize, 9_000usize)],
    );
    for &(nnz, long) in &shapes {
        let offsets = skewed_rows(nnz, long, 2048, nnz as u64);
        let rows = offsets.len() - 1;
        let cols = rows.max(1);
        let col_idx: Vec<u32> = (0..nnz as u64)
            .map(|k| (splitmix(k ^ 0xBA1) % cols as u64) as u32)
            .collect();
        let a_vals: Vec<T> = values(nnz, nnz as u64 + 1);
        let x: Vec<T> = values(cols, nnz as u64 + 2);
        let a = ok("csr", Csr::new(b, rows, cols, &offsets, &col_idx, &a_vals))?;
        let xb = ok("x", b.upload(&x))?;
        for lanes in pick(scale, &[1u32, 4, 16, 32], &[1u32, 16]) {
            let ctx = format!("{} {rows} rows nnz={nnz} vector={lanes}", T::KIND.name());
            let mut y = ok(&ctx, b.alloc::<T>(rows))?;
            ok(&ctx, b.spmv(&a, &xb, &mut y, VectorSize::Lanes(lanes)))?;
            let got = ok(&ctx, b.download(&y))?;
            let want = reference::spmv(&offsets, &col_idx, &a_vals, &x, lanes);
            same_elems(&ctx, "row", &want, &got)?;
        }
    }
    Ok(())
}

/// SpMV on rows longer than a block's window, over many chunks (f32, i32 and f64).
pub fn spmv_balanced<B: Backend>(b: &B, scale: Scale) -> Result<(), String> {
    spmv_balanced_typed::<f32, B>(b, scale)?;
    spmv_balanced_typed::<i32, B>(b, scale)?;
    spmv_balanced_typed::<f64, B>(b, scale)
}

/// Histograms of 8192 to 70000 bins (past the shared-memory counts of one block), uniform keys
/// with some past the bins, and skewed keys (most in one bin).
pub fn histogram_wide<B: Backend>(b: &B, scale: Scale) -> Result<(), String> {
    let sizes = pick(scale, &[100_003usize, 1 << 20], &[30_001usize]);
    for bins in [8192u32, 20_000, 70_000] {
        for &n in &sizes {
            for skewed in [false, true] {
                let keys: Vec<u32> = (0..n as u64)
                    .map(|i| {
                        let r = splitmix(i ^ (bins as u64) << 32);
                        if skewed && !r.is_multiple_of(8) {
                            bins / 3
                        } else {
                            (r % (bins as u64 * 9 / 8)) as u32
                        }
                    })
                    .collect();
                let ctx = format!("bins={bins} n={n} skewed={skewed}");
                let buf = ok(&ctx, b.upload(&keys))?;
                let got = ok(&ctx, b.histogram(&buf, bins))?;
                let (counts, outside) = reference::histogram(&keys, bins);
                eq(&format!("{ctx}: counts"), counts, got.counts)?;
                eq(&format!("{ctx}: outside"), outside, got.outside)?;
            }
        }
    }
    Ok(())
}
