//! The bench's baseline on the GPU-style backends without a bench layer of their own (HIP, the
//! SIMT executor): a copy between two of the backend's buffers, timed by the same harness as
//! the collectives. CUDA has device-event timing, CUB and its own kernels
//! (src/cli/bench/cuda).

use super::{GpuBackend, GpuRuntime};
use crate::cli::bench::timing::{BenchBackend, Harness, Timing};
use crate::error::Result;

fn copy_baseline<R: GpuRuntime>(
    b: &GpuBackend<R>,
    bytes: usize,
    harness: &Harness,
) -> Result<Timing>
where
    GpuBackend<R>: BenchBackend,
{
    let words = bytes.div_ceil(4);
    let src = b.buffer_from(&vec![1u32; words])?;
    let dst = b.buffer_zeroed::<u32>(words)?;
    harness.measure(b, || {
        b.runtime()
            .copy_dtod(dst.device_ptr(), src.device_ptr(), words * 4)
    })
}

impl BenchBackend for crate::simt::SimtBackend {
    fn copy_baseline(&self, bytes: usize, harness: &Harness) -> Result<Timing> {
        copy_baseline(self, bytes, harness)
    }
}

#[cfg(feature = "hip")]
impl BenchBackend for crate::hip::HipBackend {
    fn copy_baseline(&self, bytes: usize, harness: &Harness) -> Result<Timing> {
        copy_baseline(self, bytes, harness)
    }
}
