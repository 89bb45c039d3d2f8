//! The bench's baseline on the executor: a copy between two of its buffers (host memory), as
//! the GPU backends time a device-to-device copy, so `wavekit bench` can list executor rows.

use super::SimtBackend;
use crate::backend::Backend;
use crate::cli::bench::timing::{BenchBackend, Harness, Timing};
use crate::error::Result;
use crate::gpu::GpuRuntime;

impl BenchBackend for SimtBackend {
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
