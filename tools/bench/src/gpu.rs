//! The bench's baseline on the GPU-style backends without a bench layer of their own (HIP, the
//! SIMT executor): a copy between two of the backend's buffers, timed by the same harness as
//! the collectives. CUDA has device-event timing, CUB and its own kernels
//! (src/cuda).

use crate::case::ExtraCases;
use crate::timing::{BenchBackend, Harness, Timing};
use wavekit::Backend;
use wavekit::error::Result;
use wavekit::gpu::{GpuBackend, GpuBuffer, GpuRuntime};

/// A source filled with ones and a zeroed destination of `words` words. (Apart from
/// `copy_baseline` so that the buffer types resolve without its `BenchBackend` bound.)
fn copy_buffers<R: GpuRuntime>(
    b: &GpuBackend<R>,
    words: usize,
) -> Result<(GpuBuffer<u32, R>, GpuBuffer<u32, R>)> {
    Ok((b.upload(&vec![1u32; words])?, b.alloc(words)?))
}

fn copy_baseline<R: GpuRuntime>(
    b: &GpuBackend<R>,
    bytes: usize,
    harness: &Harness,
) -> Result<Timing>
where
    GpuBackend<R>: BenchBackend,
{
    let words = bytes.div_ceil(4);
    let (src, mut dst) = copy_buffers(b, words)?;
    // The checked copy: two ownership tests and a length comparison on the host, next to
    // nothing beside the bytes it moves.
    harness.measure(b, || b.copy(&src, &mut dst))
}

#[cfg(feature = "simt")]
impl ExtraCases for wavekit::simt::SimtBackend {}

#[cfg(feature = "simt")]
impl BenchBackend for wavekit::simt::SimtBackend {
    fn copy_baseline(&self, bytes: usize, harness: &Harness) -> Result<Timing> {
        copy_baseline(self, bytes, harness)
    }
}

#[cfg(feature = "hip")]
impl ExtraCases for wavekit::hip::HipBackend {}

#[cfg(feature = "hip")]
impl BenchBackend for wavekit::hip::HipBackend {
    fn copy_baseline(&self, bytes: usize, harness: &Harness) -> Result<Timing> {
        copy_baseline(self, bytes, harness)
    }
}

#[cfg(all(test, feature = "simt"))]
mod tests {
    use crate::timing::{BenchBackend, Harness};
    use wavekit::WarpWidth;

    #[test]
    fn the_executor_copy_baseline_times_every_rep() {
        let b = wavekit::simt::open(WarpWidth::W64).unwrap();
        let harness = Harness { warmup: 1, reps: 3 };
        let timing = b.copy_baseline(1 << 16, &harness).unwrap();
        assert_eq!(timing.samples.len(), 3);
    }
}
