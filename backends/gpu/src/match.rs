//! match on a GPU (`RawBackend::raw_match`, which raw_backend.rs hands here): the values
//! uploaded, csrc/kernels/match.cu's launch run and waited for, a mask and a predicate a thread
//! read back.

use super::backend::GpuBackend;
use super::ffi::kind;
use super::runtime::GpuRuntime;
use super::warp::zipped;
use wavekit_core::element::Element;
use wavekit_core::error::Result;
use wavekit_core::{Match, WarpLaunch};

impl<R: GpuRuntime> GpuBackend<R> {
    /// What `RawBackend::raw_match` does on this backend.
    pub(crate) fn match_run<T: Element>(
        &self,
        launch: &WarpLaunch,
        kind_: Match,
        vals: &[T],
    ) -> Result<Vec<(u64, bool)>> {
        self.check_launch(launch, "match values", vals.len())?;
        let mut work = self.lock();
        self.rt.make_current()?;
        let n = launch.threads;
        let input = self.buffer_from(vals)?;
        let mut masks = self.lanes_zeroed::<u64>(n)?;
        let mut preds = self.lanes_zeroed::<u8>(n)?;
        self.run_checked(&mut work, "match", |k, _| {
            k.r#match(
                self.launch_width,
                self.impl_code(),
                kind::<T>(),
                kind_ as u32,
                self.input(&input)?,
                n as u64,
                launch.mask.bits(),
                self.output_mem(&mut masks)?,
                self.output_mem(&mut preds)?,
            )
        })?;
        let m = self.read_u64s(&masks, n)?;
        let p = self.read_bytes(&preds, n)?;
        zipped(m, p, |m, p| (m, p != 0))
    }
}
