//! Hand-worked checks of the CPU backend. Expected values are written out by hand or come from
//! `wavekit_conformance::reference`, the one executable copy of docs/SEMANTICS.md, which shares
//! no code with the backend (not even `Element::combine`).

mod arg_reduce;
mod atomics;
mod chunked;
mod collectives;
mod device_reduce;
mod device_scan;
mod lookback;
mod memory;
mod segmented_reduce;
mod tile;
mod warp;

use super::CpuBackend;
use wavekit_core::width::WarpWidth;

fn cpu32() -> CpuBackend {
    CpuBackend::new(WarpWidth::W32)
}

fn cpu64() -> CpuBackend {
    CpuBackend::new(WarpWidth::W64)
}

/// Unwraps a result that the test expects to be defined on every lane.
fn all_some<T: std::fmt::Debug>(v: Vec<Option<T>>) -> Vec<T> {
    v.into_iter()
        .enumerate()
        .map(|(i, x)| x.unwrap_or_else(|| panic!("lane {i} is None")))
        .collect()
}

/// Runs `f` in a rayon pool of `threads` threads.
fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// The device scan of `vals` through the public API.
fn scan<T: wavekit_core::element::Element>(
    vals: &[T],
    op: wavekit_core::ReduceOp,
    kind: wavekit_core::ScanKind,
) -> Vec<T> {
    use wavekit_core::{Backend, Collectives};
    let b = cpu32();
    let input = b.upload(vals).unwrap();
    let mut out = b.alloc::<T>(vals.len()).unwrap();
    b.scan(&input, &mut out, op, kind).unwrap();
    b.download(&out).unwrap()
}

/// Asserts two float slices are bit-identical, naming the first index that is not.
fn assert_bits_eq<T: wavekit_core::element::Element>(got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "lengths differ");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(g.same(*w), "index {i}: got {g:?}, want {w:?}");
    }
}

#[test]
fn name_and_width() {
    use wavekit_core::Backend;
    assert_eq!(cpu32().name(), "cpu/w32");
    assert_eq!(cpu64().name(), "cpu/w64");
    assert_eq!(cpu64().warp_width(), WarpWidth::W64);
}

#[test]
fn buffers_round_trip() {
    use wavekit_core::{Backend, DeviceBuffer};
    let b = cpu32();
    let zeros = b.alloc::<f64>(3).unwrap();
    assert_eq!(b.download(&zeros).unwrap(), vec![0.0; 3]);
    let mut buf = b.upload(&[1u32, 2, 3]).unwrap();
    assert_eq!(buf.len(), 3);
    b.write(&mut buf, &[7, 8, 9]).unwrap();
    assert_eq!(b.download(&buf).unwrap(), vec![7, 8, 9]);
    assert!(b.alloc::<u32>(0).unwrap().is_empty());
}
