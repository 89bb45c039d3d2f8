//! The SIMT executor: the csrc device code compiled for the host and run on CPU fibers at 32
//! or 64 lanes, with lanes that diverge, so the wave64 path runs without an AMD GPU. Instead of
//! hanging or returning wrong data it reports hazards: block barriers not reached by every
//! thread, collective masks naming lanes that are not there, shuffles reading lanes outside
//! their mask, shared-memory races between barriers (see csrc/simt/capi.h for the kinds).

mod ffi;
#[doc(hidden)]
pub mod pitfalls;
mod session;

pub use session::{HazardKind, Report, Schedule, Session};
