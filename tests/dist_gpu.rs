//! wavekit-dist over NCCL (CUDA) and RCCL (HIP): the reproducible sum of a sharded array on
//! every GPU of the machine equals the single-device sum, in launch mode "one process".
//! Device tests; building them is what CI checks (RCCL has no AMD GPU to run on).

#![cfg(any(feature = "nccl", feature = "rccl"))]

use wavekit::dist::nccl::{NcclTransport, Vendor};
use wavekit::dist::{Comm, Layout, Mode};
use wavekit::gpu::{GpuBackend, GpuRuntime};
use wavekit::{Backend, Collectives, ReduceOp};

fn sum_is_single_device<R: GpuRuntime>(
    vendor: Vendor,
    open: impl Fn(usize) -> GpuBackend<R>,
    gpus: usize,
) {
    assert!(gpus >= 2, "needs at least two GPUs, found {gpus}");
    let n = (1 << 22) + 12_345;
    let data: Vec<f32> = (0..n).map(|i| ((i % 977) as f32).sqrt() - 15.0).collect();
    let single = {
        let b = open(0);
        b.reduce(&b.upload(&data).unwrap(), ReduceOp::Sum).unwrap()
    };
    let ranks = NcclTransport::init_all(vendor, (0..gpus).map(&open).collect()).unwrap();
    // Uneven shards whose boundaries cut tiles: rank 0 a third plus a little, the rest even.
    let first = n / 3 + 5;
    let rest = Layout::even(n - first, gpus - 1);
    let lens: Vec<usize> = std::iter::once(first)
        .chain((0..gpus - 1).map(|r| rest.range(r).len()))
        .collect();
    let layout = Layout::from_lens(&lens);
    let got: Vec<f32> = std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|t| {
                let (data, layout) = (&data, &layout);
                s.spawn(move || {
                    let c = Comm::new(t);
                    let shard = c.backend().upload(&data[layout.range(c.rank())]).unwrap();
                    c.all_reduce_value(&shard, ReduceOp::Sum, Mode::Reproducible)
                        .unwrap()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        got.iter().all(|g| g.to_bits() == single.to_bits()),
        "{got:?} vs {single}"
    );
}

#[cfg(feature = "nccl")]
#[test]
#[ignore = "needs two or more CUDA GPUs and the NCCL wheel"]
fn nccl_sum_is_single_device() {
    sum_is_single_device(
        Vendor::Nccl,
        |i| wavekit::cuda::open(i).unwrap(),
        wavekit::cuda::device_count(),
    );
}

#[cfg(feature = "rccl")]
#[test]
#[ignore = "needs two or more AMD GPUs and RCCL"]
fn rccl_sum_is_single_device() {
    sum_is_single_device(
        Vendor::Rccl,
        |i| wavekit::hip::open(i).unwrap(),
        wavekit::hip::device_count(),
    );
}
