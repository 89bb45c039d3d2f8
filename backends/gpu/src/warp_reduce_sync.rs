//! `__reduce_*_sync` on a GPU (`RawBackend::raw_warp_reduce_sync`, which raw_backend.rs hands
//! here): the values uploaded, csrc/kernels/warp_reduce_sync.cu's launch run and waited for,
//! one value a thread read back.

use super::backend::GpuBackend;
use super::ffi::kind;
use super::runtime::GpuRuntime;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{ReduceOp, WarpLaunch};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_warp_reduce_sync` does on this backend.
    pub(crate) fn warp_reduce_sync_run<T: Element>(
        &self,
        launch: &WarpLaunch,
        op: ReduceOp,
        vals: &[T],
    ) -> Result<Vec<T>> {
        self.check_launch(launch, "warp_reduce_sync values", vals.len())?;
        op.check::<T>()?;
        let n = launch.threads;
        self.map_values("warp_reduce_sync", vals, n, |k, input, out| {
            k.warp_reduce_sync(
                self.launch_width,
                self.impl_code(),
                kind::<T>(),
                op as u32,
                input,
                n as u64,
                launch.mask.bits(),
                out,
            )
        })
    }
}
