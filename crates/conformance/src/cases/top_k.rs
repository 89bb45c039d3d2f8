//! top_k: the first k of the stable sort, values and indices, for k from 1 to n, both
//! directions, ties and NaNs; k = 0 and k > n refused.

use super::sort::{sort_keys_of, sort_sizes};
use crate::Scale;
use crate::check::{eq, expect_err, ok};
use crate::reference;
use wavekit_core::element::Element;
use wavekit_core::error::WavekitError as E;
use wavekit_core::{RawBackend, SortOrder, TopK};

fn top_k_typed<T: Element, B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    let salt = T::KIND as usize;
    let sizes = sort_sizes(scale);
    let largest = sizes.len() - 1;
    for (i, n) in sizes.into_iter().enumerate() {
        // Kind 2 (one first digit for 32- and 64-bit keys: every key a candidate of the first
        // pass) at the largest size: blocks of several rounds stage more pairs than fit, on the
        // executor, whose select passes run two blocks.
        for kind in [0, 1, 2] {
            let keep = match kind {
                2 => i == largest,
                _ => scale == Scale::Full || kind == (i + salt) % 2,
            };
            if !keep {
                continue;
            }
            let data = sort_keys_of::<T>(n, n as u64 * 17 + kind as u64, kind as u32);
            let buf = ok("upload", b.upload(&data))?;
            // k up to 1024 is placed in one launch, larger k up to n / 2 gathered in position
            // order and sorted by key, larger k by a sort of all n pairs (csrc/kernels/top_k.cu);
            // the executor's small scale meets the gathered path at its largest size only.
            let mut ks = vec![1, 32, n / 4, n / 2, n - 1, n];
            if scale == Scale::Small {
                ks = if i == largest {
                    vec![1, n / 4, n / 2, n]
                } else {
                    vec![1, 32, n]
                };
            }
            ks.retain(|&k| k >= 1 && k <= n);
            ks.dedup();
            for order in [SortOrder::DESCENDING, SortOrder::ASCENDING] {
                let perm = reference::sort_permutation(&data, order);
                for &k in &ks {
                    let ctx = format!("{} n={n} keys={kind} k={k} {order:?}", T::KIND.name());
                    let want_v: Vec<u64> = perm[..k].iter().map(|&i| data[i].to_bits()).collect();
                    let want_i: Vec<u32> = perm[..k].iter().map(|&i| i as u32).collect();
                    let (v, i) = ok(&ctx, b.top_k_with_indices(&buf, k, order))?;
                    let got_v: Vec<u64> = ok(&ctx, b.download(&v))?
                        .iter()
                        .map(|x| x.to_bits())
                        .collect();
                    eq(&format!("{ctx}: values"), want_v.clone(), got_v)?;
                    eq(
                        &format!("{ctx}: indices"),
                        want_i,
                        ok(&ctx, b.download(&i))?,
                    )?;
                    if k == 1 || scale == Scale::Full {
                        let only = ok(&ctx, b.top_k(&buf, k, order))?;
                        let got_v: Vec<u64> = ok(&ctx, b.download(&only))?
                            .iter()
                            .map(|x| x.to_bits())
                            .collect();
                        eq(&format!("{ctx}: values alone"), want_v, got_v)?;
                    }
                }
            }
        }
    }
    Ok(())
}

pub fn top_k<B: RawBackend>(b: &B, scale: Scale) -> Result<(), String> {
    each_type!(top_k_typed(b, scale));
    each_half!(top_k_typed(b, scale));
    Ok(())
}

pub fn err_top_k<B: RawBackend>(b: &B, _scale: Scale) -> Result<(), String> {
    let x = ok("upload", b.upload(&[1.0f32, 2.0, 3.0]))?;
    let mut v = ok("upload", b.upload(&[5.0f32; 3]))?;
    let mut i = ok("upload", b.upload(&[5u32; 3]))?;
    expect_err!(
        "k = 0",
        b.top_k(&x, 0, SortOrder::DESCENDING).map(drop),
        E::InvalidK { k: 0, n: 3 }
    )?;
    expect_err!(
        "k > n",
        b.top_k(&x, 4, SortOrder::DESCENDING).map(drop),
        E::InvalidK { k: 4, n: 3 }
    )?;
    expect_err!(
        "k > n, into",
        b.top_k_with_indices_into(&x, 4, SortOrder::DESCENDING, &mut v, &mut i),
        E::InvalidK { .. }
    )?;
    let mut short = ok("alloc", b.alloc::<u32>(2))?;
    expect_err!(
        "indices not k long",
        b.top_k_with_indices_into(&x, 3, SortOrder::DESCENDING, &mut v, &mut short),
        E::LengthMismatch { .. }
    )?;
    let empty = ok("alloc", b.alloc::<f32>(0))?;
    expect_err!(
        "empty input",
        b.top_k(&empty, 1, SortOrder::ASCENDING).map(drop),
        E::InvalidK { k: 1, n: 0 }
    )?;
    eq(
        "values untouched",
        vec![5.0f32; 3],
        ok("download", b.download(&v))?,
    )?;
    eq(
        "indices untouched",
        vec![5u32; 3],
        ok("download", b.download(&i))?,
    )
}
