//! The bench's baseline on every GPU-style backend (CUDA, HIP, the SIMT executor): a copy
//! between two of its own buffers, timed by the same harness as the collectives.

use super::{GpuBackend, GpuRuntime};
use crate::backend::Backend;
use crate::cli::bench::timing::{BenchBackend, Harness, Timing};
use crate::error::Result;

impl<R: GpuRuntime> BenchBackend for GpuBackend<R> {
    fn copy_baseline(&self, bytes: usize, harness: &Harness) -> Result<Timing> {
        let words = bytes.div_ceil(4);
        let src = self.upload(&vec![1u32; words])?;
        let dst = self.alloc::<u32>(words)?;
        harness.measure(self, || {
            self.runtime()
                .copy_dtod(dst.device_ptr(), src.device_ptr(), words * 4)
        })
    }
}
