//! vote on a GPU (`RawBackend::raw_vote`, which raw_backend.rs hands here): the predicates
//! uploaded, csrc/kernels/vote.cu's launch run and waited for, one mask a thread read back.

use super::backend::GpuBackend;
use super::runtime::GpuRuntime;
use super::warp::bools;
use wavekit_core::error::Result;
use wavekit_core::{Vote, WarpLaunch};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_vote` does on this backend.
    pub(crate) fn vote_run(
        &self,
        launch: &WarpLaunch,
        vote: Vote,
        preds: &[bool],
    ) -> Result<Vec<u64>> {
        self.check_launch(launch, "vote predicates", preds.len())?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let input = self.mem_from(&bools(preds)?)?;
        let mut out = self.lanes_zeroed::<u64>(n)?;
        self.run_checked(&mut work, "vote", |k, _| {
            k.vote(
                self.launch_width,
                self.impl_code(),
                vote as u32,
                self.input_mem(&input)?,
                n as u64,
                launch.mask.bits(),
                self.output_mem(&mut out)?,
            )
        })?;
        self.read_u64s(&out, n)
    }
}
