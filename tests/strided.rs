//! `SliceDevice::download_strided` on the GPU backend
//! (backends/gpu/src/slice_device/strided.rs), what the distributed sort samples and searches
//! its shards with: every start, stride and count against the host's indexing, refused (typed,
//! nothing read) past the end; on the SIMT executor at both widths (the runtime's
//! element-at-a-time default) and on CUDA (one pitched copy, and the fallback
//! for a pitch past i32::MAX bytes).

use wavekit::gpu::{GpuBackend, GpuRuntime};
use wavekit::{Backend, SliceDevice, WavekitError};

fn against_host<R: GpuRuntime>(b: &GpuBackend<R>) {
    let host: Vec<u64> = (0..5000u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let buf = b.upload(&host).unwrap();
    for (start, stride, count) in [
        (0, 1, 5000),
        (0, 0, 3),
        (4999, 7, 1),
        (3, 17, 294),
        (100, 4899, 2),
        (0, 1249, 5),
        (2, 1, 0),
    ] {
        let want: Vec<u64> = (0..count).map(|k| host[start + k * stride]).collect();
        let got = b.download_strided(&buf, start, stride, count).unwrap();
        assert_eq!(got, want, "start {start}, stride {stride}, count {count}");
    }
    for (start, stride, count) in [(0, 1, 5001), (5000, 1, 1), (1, 1250, 5), (0, usize::MAX, 2)] {
        match b.download_strided(&buf, start, stride, count) {
            Err(WavekitError::IndexOutOfRange { .. }) => {}
            other => panic!("start {start}, stride {stride}, count {count}: {other:?}"),
        }
    }
}

#[cfg(feature = "simt")]
mod simt {
    use super::*;
    use wavekit::WarpWidth;

    #[test]
    fn against_host_w32() {
        against_host(&wavekit::simt::open(WarpWidth::W32).unwrap());
    }

    #[test]
    fn against_host_w64() {
        against_host(&wavekit::simt::open(WarpWidth::W64).unwrap());
    }
}

#[cfg(feature = "cuda")]
mod cuda {
    use super::*;

    #[test]
    #[ignore = "needs a CUDA device"]
    fn against_host_and_a_pitch_past_i32() {
        let b = wavekit::cuda::open(0).expect("CUDA device 0");
        against_host(&b);
        // 2^28 + 1 u64: a stride of 2^28 elements is 2 GiB, past the pitched copy's limit.
        let n = (1usize << 28) + 1;
        let mut buf = b.alloc::<u64>(n).unwrap();
        for (at, v) in [(0, 11u64), (n - 1, 22)] {
            let mut one = b.slice_mut(&mut buf, at..at + 1).unwrap();
            b.write(&mut one, &[v]).unwrap();
        }
        assert_eq!(b.download_strided(&buf, 0, n - 1, 2).unwrap(), [11, 22]);
    }
}
