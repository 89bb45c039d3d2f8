//! The sorting and grouped collectives of zero_alloc.rs's counted loop (sorts, runs, by_key,
//! partition), each call into the setup's outputs and checked against the reference when asked.

use super::{Setup, THRESHOLD, TOP_K, same};
use wavekit::gpu::{GpuBackend, GpuRuntime};
use wavekit::{
    Backend, ByKey, Partition, PartitionReversed, Predicate, ReduceOp, Runs, ScanKind,
    SegmentedSort, Sort, SortOrder, TopK,
};
use wavekit_conformance::reference as refr;

/// Every sorting collective into the setup's outputs: keys, pairs (f32 keys, u32 values),
/// argsort, a segmented sort (segments past a warp: the device path), top-k.
pub(super) fn sorts<R: GpuRuntime>(b: &GpuBackend<R>, s: &mut Setup<R>, check: bool) {
    let (up, down) = (SortOrder::ASCENDING, SortOrder::DESCENDING);
    b.sort_keys_into(&s.u_in, &mut s.sorted_u, up).unwrap();
    if check {
        let want: Vec<u32> = refr::sort_permutation(&s.ints, up)
            .iter()
            .map(|&i| s.ints[i])
            .collect();
        assert_eq!(b.download(&s.sorted_u).unwrap(), want, "sort keys");
    }
    b.sort_pairs_into(&s.f_in, &s.u_in, &mut s.sorted_f, &mut s.sorted_v, down)
        .unwrap();
    b.argsort_into(&s.f_in, &mut s.sorted_u, up).unwrap();
    if check {
        let perm = refr::sort_permutation(&s.floats, up);
        let want: Vec<u32> = perm.iter().map(|&i| i as u32).collect();
        assert_eq!(b.download(&s.sorted_u).unwrap(), want, "argsort");
        let perm = refr::sort_permutation(&s.floats, down);
        let want: Vec<u32> = perm.iter().map(|&i| s.ints[i]).collect();
        assert_eq!(b.download(&s.sorted_v).unwrap(), want, "sort pairs values");
    }
    b.segmented_sort_keys_into(&s.u_in, &s.by_offsets, &mut s.sorted_u, up)
        .unwrap();
    if check {
        let bounds: Vec<(usize, usize)> = s
            .offsets
            .windows(2)
            .map(|w| (w[0] as usize, w[1] as usize))
            .collect();
        let perm = refr::segmented_permutation(&s.ints, &bounds, up);
        let want: Vec<u32> = perm.iter().map(|&i| s.ints[i]).collect();
        assert_eq!(b.download(&s.sorted_u).unwrap(), want, "segmented sort");
    }
    b.top_k_with_indices_into(&s.f_in, TOP_K, down, &mut s.top_v, &mut s.top_i)
        .unwrap();
    if check {
        let perm = refr::sort_permutation(&s.floats, down);
        let want: Vec<u32> = perm[..TOP_K].iter().map(|&i| i as u32).collect();
        assert_eq!(b.download(&s.top_i).unwrap(), want, "top-k indices");
    }
    runs(b, s, check);
}

/// The runs collectives into the sort outputs: run-length encode and unique by key of the
/// histogram keys (45 values, so some runs are longer than one).
fn runs<R: GpuRuntime>(b: &GpuBackend<R>, s: &mut Setup<R>, check: bool) {
    let want = refr::runs(&s.keys);
    b.run_length_encode_into(&s.keys_in, &mut s.sorted_u, &mut s.sorted_v, &mut s.count)
        .unwrap();
    if check {
        let lens: Vec<u32> = want.iter().map(|r| r.1 as u32).collect();
        let got = b.download(&s.sorted_v).unwrap();
        assert_eq!(
            b.download(&s.count).unwrap()[0] as usize,
            want.len(),
            "runs"
        );
        assert_eq!(got[..want.len()], lens[..], "run lengths");
    }
    b.unique_by_key_into(
        &s.keys_in,
        &s.f_in,
        &mut s.sorted_u,
        &mut s.sorted_f,
        &mut s.count,
    )
    .unwrap();
    if check {
        let firsts: Vec<f32> = want.iter().map(|r| s.floats[r.0]).collect();
        let got = b.download(&s.sorted_f).unwrap();
        assert_eq!(got[..want.len()], firsts[..], "unique by key values");
    }
    by_key(b, s, check);
}

/// scan_by_key (inclusive and exclusive) and reduce_by_key of the floats by the histogram
/// keys, into the scan and sort outputs.
fn by_key<R: GpuRuntime>(b: &GpuBackend<R>, s: &mut Setup<R>, check: bool) {
    for kind in [ScanKind::Inclusive, ScanKind::Exclusive] {
        b.scan_by_key_into(&s.keys_in, &s.f_in, &mut s.f_scan, ReduceOp::Sum, kind)
            .unwrap();
        if check {
            let want = refr::scan_by_key(&s.keys, &s.floats, ReduceOp::Sum, kind);
            let got = b.download(&s.f_scan).unwrap();
            assert!(same(&got, &want), "scan_by_key f32 {kind:?}");
        }
    }
    b.reduce_by_key_into(
        &s.keys_in,
        &s.f_in,
        &mut s.sorted_u,
        &mut s.sorted_f,
        &mut s.count,
        ReduceOp::Max,
    )
    .unwrap();
    if check {
        let (keys, vals) = refr::reduce_by_key(&s.keys, &s.floats, ReduceOp::Max);
        assert_eq!(b.download(&s.count).unwrap()[0] as usize, keys.len());
        assert_eq!(b.download(&s.sorted_u).unwrap()[..keys.len()], keys[..]);
        let got = b.download(&s.sorted_f).unwrap();
        assert!(same(&got[..vals.len()], &vals), "reduce_by_key values");
    }
    partition(b, s, check);
}

/// partition and partition_reversed (floats above 0.5), partition3 and partition3_reversed
/// (ints below 2^31, then below 2^31 + 2^30) into the scan and sort outputs.
fn partition<R: GpuRuntime>(b: &GpuBackend<R>, s: &mut Setup<R>, check: bool) {
    let pred = Predicate::Gt(0.5f32);
    b.partition_into(&s.f_in, pred, &mut s.f_scan, &mut s.count)
        .unwrap();
    if check {
        let (want, selected) = refr::partition(&s.floats, &pred);
        assert_eq!(b.download(&s.count).unwrap(), [selected as u64]);
        assert!(same(&b.download(&s.f_scan).unwrap(), &want), "partition");
    }
    let (first, second) = (
        Predicate::Lt(THRESHOLD),
        Predicate::Lt(THRESHOLD + (1 << 30)),
    );
    b.partition3_into(&s.u_in, first, second, &mut s.sorted_u, &mut s.counts2)
        .unwrap();
    if check {
        let (want, counts) = refr::partition3(&s.ints, &first, &second);
        assert_eq!(
            b.download(&s.counts2).unwrap(),
            counts.map(|c| c as u64),
            "partition3 counts"
        );
        assert_eq!(b.download(&s.sorted_u).unwrap(), want, "partition3");
    }
    b.partition_reversed_into(&s.f_in, pred, &mut s.f_scan, &mut s.count)
        .unwrap();
    if check {
        let (want, selected) = refr::partition_reversed(&s.floats, &pred);
        assert_eq!(b.download(&s.count).unwrap(), [selected as u64]);
        let got = b.download(&s.f_scan).unwrap();
        assert!(same(&got, &want), "partition_reversed");
    }
    b.partition3_reversed_into(
        &s.u_in,
        first,
        second,
        &mut s.sorted_u,
        &mut s.sorted_v,
        &mut s.counts2,
    )
    .unwrap();
    if check {
        let (one, two, rest) = refr::partition3_reversed(&s.ints, &first, &second);
        let (out, mid) = (
            b.download(&s.sorted_u).unwrap(),
            b.download(&s.sorted_v).unwrap(),
        );
        assert_eq!(
            b.download(&s.counts2).unwrap(),
            [one.len(), two.len()].map(|c| c as u64)
        );
        assert_eq!(out[..one.len()], one[..], "partition3_reversed first part");
        assert_eq!(
            out[out.len() - rest.len()..],
            rest[..],
            "partition3_reversed rest"
        );
        assert_eq!(mid[..two.len()], two[..], "partition3_reversed middle part");
    }
}
