//! wavekit-simt, the SIMT executor: the csrc device code compiled for the host and run on CPU fibers at 32
//! or 64 lanes, with lanes that diverge, so the wave64 path runs without an AMD GPU. Instead of
//! hanging or returning wrong data it reports hazards: block barriers not reached by every
//! thread, collective masks naming lanes that are not there, shuffles reading lanes outside
//! their mask, shared-memory races between barriers (see csrc/simt/capi.h for the kinds).
//!
//! `SimtBackend` is the shared GPU backend over [`SimtRuntime`]: the real kernels, the real
//! launchers and the real host code, with a hazard failing the call that caused it.
//!
//! How it works (csrc/simt): csrc/src/simt.rs compiles csrc/kernels and csrc/simt/pitfalls with the
//! host C++ compiler twice, at 32 and 64 lanes, against csrc/simt/arch_simt.h, which implements
//! the device layer's arch interface on the executor core ([`Arch::Simt`]). It also compiles
//! csrc/kernels twice more against the real csrc/wavekit/arch_hip.h ([`Arch::Hip`]), whose
//! AMDGCN builtins (`mbcnt`, the `uicmp` ballot, `ds_bpermute`, ...) csrc/simt/amdgcn implements
//! as the AMD ISA documents them, so the AMD code path itself runs: at 64 lanes as on
//! gfx90a/gfx940, at 32 as on gfx1030 (see [`open_arch`]). Each GPU thread of a block is a
//! fiber; blocks run one after another. A fiber runs until it reaches a synchronising point (a
//! warp collective, `__syncwarp`, `__syncthreads`, exit; in lockstep also every shared-memory
//! access); when every fiber of the block waits, the scheduler resolves what it can:
//!
//! - a warp collective once every lane its mask names has arrived at a call of the same kind,
//!   mask and source line (any `__syncwarp` line matches another). If a named lane has exited
//!   or does not exist, the collective goes ahead with a report (`InactiveMaskLane`); if named
//!   lanes wait elsewhere and nothing else can move, the block would hang on hardware: the
//!   executor reports who waits where (`InactiveMaskLane` for a block barrier,
//!   `MismatchedCollective` for another collective or mask) and resolves it with the lanes
//!   that did arrive. A shuffle whose source lane is outside its mask reads a poison value and
//!   is reported (`ShflOutsideMask`), naming the `__activemask()` the mask came from if so.
//! - an AMD wave instruction (`Arch::Hip`): the lanes at the same instruction, whatever the
//!   schedule, as a wave's EXEC mask; where lanes wait at different ones, the group earliest in
//!   the code goes first, so the lanes of a branch finish it before the others go on
//!   (csrc/simt/amdgcn/wave.cpp). A `ds_bpermute` reading a lane that is not there reads 0,
//!   as the ISA says, and is reported (`ShflOutsideMask`).
//! - `__activemask()` (and HIP's mask-free ballot): the lanes of the warp waiting at that same
//!   call. In lockstep that is the whole branch; under independent scheduling the executor
//!   splits them into two random groups, as Volta may, so a mask taken this way inside a branch
//!   is short, and the shuffle that uses it reads lanes outside it: reported every time, at
//!   every width, even when the branch holds the whole warp (seed 000).
//! - `__syncthreads` once every thread of the block waits at one; if they wait at different
//!   lines (or different counts), or some exited, it is reported (`BarrierDivergence`) and
//!   released as the hardware barrier, which counts arrivals, would (seed 001).
//!
//! Shared memory declared with `WK_SHARED` is tracked per element: the last write and the
//! reads since, each stamped with the thread, its warp-local vector clock (advanced by
//! `__syncwarp`, or by a collective all participants reached after a fence, which is how the
//! emulated syncwarp orders memory) and the block's barrier count. Two accesses by different
//! threads race (`SharedRace`) when one writes, they are not both atomic, and neither a
//! `__syncthreads` nor a warp sync both took part in lies between them; indices past the array
//! are reported too (`SharedOutOfBounds`). Warp shuffles and votes do not order memory, as in
//! the CUDA memory model. The thread order between synchronising points is forward, reverse,
//! seeded random, or lockstep ([`Schedule`]): races are reported whatever the order, and the
//! orders make their effects on the data show.
//!
//! Value checks (csrc/simt/checks.cpp) catch the data bugs of wave64 ports that break no mask
//! or barrier rule: a wave64 lane mask cut to 32 bits (`MaskNarrowed`: given to `__popc`,
//! `__ffs` or `__clz`, or stored in 32 bits and then used as a mask or counted), shifts past
//! the width of their type (`ShiftOutOfRange`: the device code is built with
//! `-fsanitize=shift` and the executor defines UBSan's handlers), shared memory read before any
//! thread wrote it
//! (`UninitSharedRead`), outputs registered with `expect_written` that no thread wrote
//! (`UnwrittenOutput`), and shuffle trees that start at 16 on 64 lanes or at the width
//! (`ReductionSpan`). [`corpus`] holds a kernel for each bug it knows, with its fixed twin.
//!
//! Users' own kernels, written against csrc/wavekit.h and compiled by
//! `wavekit_kernels::user::executor`, run here too ([`user`], [`user_kernel!`]), and so do plain
//! CUDA and HIP files built by `wavekit_kernels::plain` into a shared library
//! ([`user::Library`], what `wavekit check` runs). Their `__shared__` memory is real storage
//! the kernel addresses through any pointer: they are compiled with ThreadSanitizer's
//! instrumentation, whose hooks (csrc/simt/tsan.cpp, raw.cpp) check every access that lands in
//! it as above, the report naming the instruction's line (symbolize.cpp, through addr2line). A
//! lane that faults on memory nothing of the launch holds is reported (`InvalidAccess`) and its
//! launch abandoned (csrc/simt/fault.cpp).

#![warn(missing_docs)]
#![warn(missing_debug_implementations)]

#[doc(hidden)]
pub mod amdgcn;
mod arch;
pub mod corpus;
mod ffi;
#[doc(hidden)]
pub mod pitfalls;
mod runtime;
mod session;
pub mod user;

pub use arch::Arch;
pub use runtime::SimtRuntime;
pub use session::{HazardKind, Report, Schedule, Session};

use wavekit_core::error::Result;
use wavekit_core::width::WarpWidth;
use wavekit_gpu::GpuBackend;

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

/// An executor backend running the kernels compiled against `arch`, at `width` lanes, under
/// the arch's default schedule ([`Arch::default_schedule`]: lockstep for the AMD code path).
pub fn open_arch(arch: Arch, width: WarpWidth) -> Result<SimtBackend> {
    open_arch_with(arch, width, arch.default_schedule())
}

/// An executor backend running the kernels compiled against `arch`, at `width` lanes, under
/// `schedule`.
pub fn open_arch_with(arch: Arch, width: WarpWidth, schedule: Schedule) -> Result<SimtBackend> {
    GpuBackend::new(SimtRuntime::with_arch(arch, width, schedule))
}
