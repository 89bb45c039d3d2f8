//! Which device layer the executor runs the kernels through: its own arch header, or the real
//! AMD one on the executor's AMDGCN builtins (both built by csrc/src/simt.rs at 32 and 64 lanes).

use super::session::Schedule;
use wavekit_core::width::WarpWidth;
use wavekit_gpu::ffi::Launchers;

unsafe extern "C" {
    /// The csrc launcher tables built by csrc/src/simt.rs (csrc/kernels/table.cu per flavour).
    fn wk_simt32_launchers() -> *const Launchers;
    fn wk_simt64_launchers() -> *const Launchers;
    fn wk_simthip32_launchers() -> *const Launchers;
    fn wk_simthip64_launchers() -> *const Launchers;
}

/// The arch layer under the kernels the executor runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    /// csrc/simt/arch_simt.h: the device layer's interface implemented on the executor with
    /// CUDA's semantics (native uni, match, syncwarp and activemask; every mask checked).
    Simt,
    /// The unmodified csrc/wavekit/arch_hip.h, the code hipcc compiles, on the AMDGCN builtins
    /// of csrc/simt/amdgcn: the `mbcnt` lane id, the `uicmp` ballot, `ds_bpermute` shuffles
    /// (64-bit values as two halves), and emulated uni, match, syncwarp and activemask. At 64
    /// lanes it is the gfx90a/gfx940 code path, at 32 the gfx1030 one.
    Hip,
}

impl Arch {
    /// Both arch layers.
    pub const ALL: [Arch; 2] = [Arch::Simt, Arch::Hip];

    /// The header the kernels were compiled against.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Simt => "arch_simt.h",
            Arch::Hip => "arch_hip.h",
        }
    }

    /// The schedule `open_arch` uses: for `Simt` the one that shows the most
    /// ([`super::DEFAULT_SCHEDULE`]); for `Hip` lockstep, how AMD waves run.
    pub fn default_schedule(self) -> Schedule {
        match self {
            Arch::Simt => super::DEFAULT_SCHEDULE,
            Arch::Hip => Schedule::Lockstep,
        }
    }

    pub(crate) fn launchers(self, width: WarpWidth) -> &'static Launchers {
        // SAFETY: each returns the address of a static table that lives for the whole program.
        unsafe {
            &*match (self, width) {
                (Arch::Simt, WarpWidth::W32) => wk_simt32_launchers(),
                (Arch::Simt, WarpWidth::W64) => wk_simt64_launchers(),
                (Arch::Hip, WarpWidth::W32) => wk_simthip32_launchers(),
                (Arch::Hip, WarpWidth::W64) => wk_simthip64_launchers(),
            }
        }
    }
}
