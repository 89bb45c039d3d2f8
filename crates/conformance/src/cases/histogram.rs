//! histogram: counts per bin with keys at and past the bin count counted outside; zero bins
//! refused.

use crate::Scale;
use crate::check::{eq, expect_err, ok};
use crate::inputs::{data_sizes, pick};
use crate::reference;
use wavekit_core::RawBackend;
use wavekit_core::api::Collectives;
use wavekit_core::element::splitmix;
use wavekit_core::error::WavekitError as E;

pub fn histogram<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    for bins in [1u32, 7, 256, 1000] {
        for n in data_sizes(scale) {
            let mut keys: Vec<u32> = (0..n as u64)
                .map(|i| (splitmix(i ^ (bins as u64) << 32) % (bins as u64 * 3 / 2 + 1)) as u32)
                .collect();
            // Keys just at and far past the bin count, counted outside, never dropped.
            let len = keys.len();
            for (i, k) in [bins, bins + 1, u32::MAX, 0, bins - 1]
                .into_iter()
                .enumerate()
            {
                keys[i * len / 5] = k;
            }
            check_counts(b, &keys, bins, &format!("bins={bins} n={n}"))?;
        }
    }
    Ok(())
}

/// The backend's histogram of `keys` against the reference: every bin and the outside count.
fn check_counts<B: RawBackend>(b: &B, keys: &[u32], bins: u32, ctx: &str) -> Result<(), String> {
    let buf = ok(ctx, b.upload(keys))?;
    let got = ok(ctx, b.histogram(&buf, bins))?;
    let (counts, outside) = reference::histogram(keys, bins);
    eq(&format!("{ctx}: counts"), counts, got.counts)?;
    eq(&format!("{ctx}: outside"), outside, got.outside)
}

pub fn err_histogram_bins<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let keys = ok("upload", b.upload(&[0u32, 1, 2]))?;
    expect_err!("0 bins", b.histogram(&keys, 0).map(drop), E::ZeroBins)?;
    let empty = ok("alloc", b.alloc::<u32>(0))?;
    expect_err!(
        "0 bins, no keys",
        b.histogram(&empty, 0).map(drop),
        E::ZeroBins
    )
}

/// Histograms wider than one block's shared memory (the GPU counts a slice of bins per block):
/// 8192 to 70000 bins, uniform keys
/// with some past the bins, and skewed keys (most in one bin).
pub fn histogram_wide<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
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
                check_counts(
                    b,
                    &keys,
                    bins,
                    &format!("bins={bins} n={n} skewed={skewed}"),
                )?;
            }
        }
    }
    Ok(())
}
