//! The SIMT executor: the csrc device code compiled for the host and run on CPU fibers at 32
//! or 64 lanes, with lanes that diverge, so the wave64 path runs without an AMD GPU. Instead of
//! hanging or returning wrong data it reports hazards: block barriers not reached by every
//! thread, collective masks naming lanes that are not there, shuffles reading lanes outside
//! their mask, shared-memory races between barriers (see csrc/simt/capi.h for the kinds).
//!
//! `SimtBackend` is the shared GPU backend over [`SimtRuntime`]: the real kernels, the real
//! launchers and the real host code, with a hazard failing the call that caused it.

mod ffi;
#[doc(hidden)]
pub mod pitfalls;
mod runtime;
mod session;

pub use runtime::SimtRuntime;
pub use session::{HazardKind, Report, Schedule, Session};

use crate::error::Result;
use crate::gpu::GpuBackend;
use crate::width::WarpWidth;

/// The csrc kernels on the SIMT executor.
pub type SimtBackend = GpuBackend<SimtRuntime>;

/// The schedule `open` uses: independent thread scheduling in a seeded random lane order, with
/// `__activemask()` coming back short, the one that shows the most.
pub const DEFAULT_SCHEDULE: Schedule = Schedule::Random(0x5157_5eed);

/// An executor backend at `width` lanes under `DEFAULT_SCHEDULE`.
pub fn open(width: WarpWidth) -> Result<SimtBackend> {
    open_with(width, DEFAULT_SCHEDULE)
}

/// An executor backend at `width` lanes under `schedule`.
pub fn open_with(width: WarpWidth, schedule: Schedule) -> Result<SimtBackend> {
    GpuBackend::new(SimtRuntime::new(width, schedule))
}

impl GpuBackend<SimtRuntime> {
    /// An executor backend at `width` lanes (see [`open`]). (`new` is the generic
    /// `GpuBackend::new(runtime)`.)
    pub fn open(width: WarpWidth) -> Result<SimtBackend> {
        open(width)
    }
}
