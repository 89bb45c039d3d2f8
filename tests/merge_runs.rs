//! `SliceDevice::merge_runs_keys` / `merge_runs_pairs` on the GPU backend (the merge of
//! wavekit-dist's sample sort) against the conformance reference's stable sort, bit for bit: runs sorted by the
//! reference, laid one after another, merged on the device, compared with the reference's
//! stable sort of the whole input. On the SIMT executor at 32 and 64 lanes (CI) and on a CUDA
//! device. Keys are drawn from few values, so that equal keys from different runs (and within
//! one) are common and the order the merge keeps between them shows.

use wavekit::SliceDevice;
use wavekit::gpu::{GpuBackend, GpuRuntime, MAX_MERGE_RUNS};
use wavekit::prelude::*;
use wavekit::{WavekitError, element::splitmix};
use wavekit_conformance::reference::sort_permutation;

/// Key i of a case: one of few values (some specials among the floats' seeds).
fn key<K: Element>(i: usize, seed: u64) -> K {
    K::from_seed(splitmix(seed ^ (splitmix(i as u64) % 23)))
}

/// Runs of the given lengths, each sorted by `order` (values: the keys' input positions), laid
/// one after another; and the reference's stable sort of that whole input.
fn case<K: Element>(lens: &[usize], order: SortOrder, seed: u64) -> [(Vec<K>, Vec<u32>); 2] {
    let mut keys = Vec::new();
    let mut vals = Vec::new();
    let mut at = 0;
    for &len in lens {
        let raw: Vec<K> = (at..at + len).map(|i| key(i, seed)).collect();
        for p in sort_permutation(&raw, order) {
            keys.push(raw[p]);
            vals.push((at + p) as u32);
        }
        at += len;
    }
    let perm = sort_permutation(&keys, order);
    let want = (
        perm.iter().map(|&p| keys[p]).collect(),
        perm.iter().map(|&p| vals[p]).collect(),
    );
    [(keys, vals), want]
}

fn check<K: Element, R: GpuRuntime>(b: &GpuBackend<R>, lens: &[usize], order: SortOrder) {
    let seed = lens.iter().sum::<usize>() as u64 * 31 + lens.len() as u64;
    let [(keys, vals), (want_k, want_v)] = case::<K>(lens, order, seed);
    let what = format!("{} {order:?} runs {lens:?}", K::KIND.name());
    let dk = b.upload(&keys).unwrap();
    let got = b
        .download(&b.merge_runs_keys(&dk, lens, order).unwrap())
        .unwrap();
    let same = |g: &[K]| g.len() == want_k.len() && g.iter().zip(&want_k).all(|(a, w)| a.same(*w));
    assert!(same(&got), "{what}: keys");
    let dv = b.upload(&vals).unwrap();
    let (pk, pv) = b.merge_runs_pairs(&dk, &dv, lens, order).unwrap();
    let (pk, pv) = (b.download(&pk).unwrap(), b.download(&pv).unwrap());
    assert!(same(&pk), "{what}: pairs' keys");
    let wrong = pv.iter().zip(&want_v).position(|(g, w)| g != w);
    assert!(
        pv.len() == want_v.len() && wrong.is_none(),
        "{what}: pairs' values (the input positions) differ first at {wrong:?}"
    );
}

/// 8-byte and 2-byte values move with their keys as the 4-byte ones do.
fn check_value_sizes<R: GpuRuntime>(b: &GpuBackend<R>) {
    let lens = [700, 2500, 1];
    let [(keys, vals), (want_k, want_v)] = case::<i32>(&lens, SortOrder::ASCENDING, 5);
    let dk = b.upload(&keys).unwrap();
    let wide: Vec<u64> = vals.iter().map(|&v| u64::from(v) << 32 | 7).collect();
    let (k, v) = b
        .merge_runs_pairs(&dk, &b.upload(&wide).unwrap(), &lens, SortOrder::ASCENDING)
        .unwrap();
    assert_eq!(b.download(&k).unwrap(), want_k);
    let want: Vec<u64> = want_v.iter().map(|&v| u64::from(v) << 32 | 7).collect();
    assert_eq!(b.download(&v).unwrap(), want, "8-byte values");
    let narrow: Vec<wavekit::f16> = vals
        .iter()
        .map(|&v| wavekit::f16::from_bits(v as u16))
        .collect();
    let (_, v) = b
        .merge_runs_pairs(
            &dk,
            &b.upload(&narrow).unwrap(),
            &lens,
            SortOrder::ASCENDING,
        )
        .unwrap();
    let got: Vec<u32> = b
        .download(&v)
        .unwrap()
        .iter()
        .map(|h| u32::from(h.to_bits()))
        .collect();
    let want: Vec<u32> = want_v.iter().map(|&v| v & 0xffff).collect();
    assert_eq!(got, want, "2-byte values");
}

fn bad_input<R: GpuRuntime>(b: &GpuBackend<R>) {
    let keys = b.upload(&[3u32, 1, 2, 2]).unwrap();
    let vals = b.upload(&[0u32, 1, 2]).unwrap();
    let asc = SortOrder::ASCENDING;
    let e = b.merge_runs_keys(&keys, &[], asc).unwrap_err();
    assert!(matches!(e, WavekitError::EmptyInput { .. }), "{e}");
    let e = b.merge_runs_keys(&keys, &[1, 2], asc).unwrap_err();
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    let e = b.merge_runs_keys(&keys, &[usize::MAX, 5], asc).unwrap_err();
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    let e = b.merge_runs_keys(&keys, &[4], asc.bits(8, 8)).unwrap_err();
    assert!(matches!(e, WavekitError::InvalidBitRange { .. }), "{e}");
    let e = b.merge_runs_pairs(&keys, &vals, &[4], asc).unwrap_err();
    assert!(matches!(e, WavekitError::LengthMismatch { .. }), "{e}");
    assert_eq!(
        b.download(&keys).unwrap(),
        [3, 1, 2, 2],
        "the input is not written"
    );
}

fn every_shape<R: GpuRuntime>(b: &GpuBackend<R>, scale: usize) {
    let asc = SortOrder::ASCENDING;
    let shapes: [&[usize]; 9] = [
        &[0],
        &[5],
        &[2048, 2048],
        &[1, 0, 3000],
        &[3000, 4097, 100],
        &[10, 20, 30, 40, 5000],
        &[900; 8],
        &[333; 17],
        &[0, 6000, 0, 0, 1],
    ];
    for lens in shapes {
        let lens: Vec<usize> = lens.iter().map(|&l| l * scale).collect();
        check::<u32, R>(b, &lens, asc);
    }
    let lens = [1500 * scale, 2049 * scale, 7 * scale, 900 * scale];
    check::<i32, R>(b, &lens, SortOrder::DESCENDING);
    check::<f32, R>(b, &lens, asc);
    check::<f32, R>(b, &lens, SortOrder::DESCENDING);
    check::<u64, R>(b, &lens, asc.bits(3, 11));
    check::<i64, R>(b, &lens, asc);
    check::<f64, R>(b, &lens, SortOrder::DESCENDING.bits(40, 64));
    check::<wavekit::f16, R>(b, &lens, asc);
    check::<wavekit::bf16, R>(b, &lens, SortOrder::DESCENDING);
    // Past the kernel's runs the backend sorts again: the same stable sort.
    check::<u32, R>(b, &vec![2 * scale; MAX_MERGE_RUNS + 1], asc);
    check_value_sizes(b);
    bad_input(b);
}

#[cfg(feature = "simt")]
#[test]
fn executor_merge_is_the_stable_sort() {
    for width in WarpWidth::ALL {
        every_shape(&wavekit::simt::open(width).unwrap(), 1);
    }
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn cuda_merge_is_the_stable_sort() {
    every_shape(&wavekit::cuda::open(0).expect("CUDA device 0"), 97);
}
