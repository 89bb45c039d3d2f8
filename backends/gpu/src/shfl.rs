//! shfl on a GPU (`RawBackend::raw_shfl`, which raw_backend.rs hands here): the values
//! uploaded, csrc/kernels/shfl.cu's launch run and waited for, one value a thread read back.

use super::backend::GpuBackend;
use super::ffi::kind;
use super::runtime::GpuRuntime;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{Shfl, WarpLaunch};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_shfl` does on this backend.
    pub(crate) fn shfl_run<T: Element>(
        &self,
        launch: &WarpLaunch,
        kind_: Shfl,
        vals: &[T],
        arg: i32,
        width: u32,
    ) -> Result<Vec<T>> {
        self.check_launch(launch, "shfl values", vals.len())?;
        self.width.check_sub_width(width)?;
        let n = launch.threads;
        self.map_values("shfl", vals, n, |k, input, out| {
            k.shfl(
                self.launch_width,
                kind::<T>(),
                kind_ as u32,
                input,
                n as u64,
                launch.mask.bits(),
                arg,
                width,
                out,
            )
        })
    }
}
