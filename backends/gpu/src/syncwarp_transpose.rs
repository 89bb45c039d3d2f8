//! The transpose through `__syncwarp` on a GPU (`RawBackend::raw_syncwarp_transpose`, which
//! raw_backend.rs hands here): the values uploaded, csrc/kernels/syncwarp_transpose.cu's launch
//! run and waited for, one value a thread read back.

use super::backend::GpuBackend;
use super::ffi::kind;
use super::runtime::GpuRuntime;
use wavekit_core::WarpLaunch;
use wavekit_core::element::Element;
use wavekit_core::error::Result;

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_syncwarp_transpose` does on this backend.
    pub(crate) fn syncwarp_transpose_run<T: Element>(
        &self,
        launch: &WarpLaunch,
        vals: &[T],
    ) -> Result<Vec<T>> {
        self.check_launch(launch, "transpose values", vals.len())?;
        let n = launch.threads;
        self.map_values("syncwarp_transpose", vals, n, |k, input, out| {
            k.syncwarp_transpose(
                self.launch_width,
                self.impl_code(),
                kind::<T>(),
                input,
                n as u64,
                launch.mask.bits(),
                out,
            )
        })
    }
}
