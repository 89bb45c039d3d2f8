//! activemask on a GPU (`RawBackend::raw_activemask`, which raw_backend.rs hands here):
//! csrc/kernels/activemask.cu's launch run and waited for, one mask a thread read back.

use super::backend::GpuBackend;
use super::runtime::GpuRuntime;
use wavekit_core::WarpLaunch;
use wavekit_core::error::Result;

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_activemask` does on this backend.
    pub(crate) fn activemask_run(&self, launch: &WarpLaunch) -> Result<Vec<u64>> {
        self.check_launch(launch, "activemask threads", launch.threads)?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let mut out = self.lanes_zeroed::<u64>(n)?;
        self.run_checked(&mut work, "activemask", |k, _| {
            k.activemask(
                self.launch_width,
                self.impl_code(),
                n as u64,
                launch.mask.bits(),
                self.output_mem(&mut out)?,
            )
        })?;
        self.read_u64s(&out, n)
    }
}
