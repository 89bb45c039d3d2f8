//! Which backends this binary was built with, and one value that holds any of them, so every
//! command is written once as a generic function over the backend and dispatched here.
//!
//! Adding a backend takes three small edits (GPU ones under their feature's `cfg`): a variant
//! of `AnyBackend`, its arm in `with_backend!`, and its arm in `BackendKind::open`. Every
//! `GpuBackend<R>` already has the bench's copy baseline (wavekit-bench, tools/bench/src/gpu.rs).

use wavekit::cpu::CpuBackend;
use wavekit::error::{Result, WavekitError};
use wavekit::width::WarpWidth;

/// The backends a user can name on the command line, compiled in or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
    Cpu,
    /// The csrc kernels on the CPU through the SIMT executor (feature `simt`, on by default).
    Simt,
    Cuda,
    Hip,
}

impl BackendKind {
    /// Every kind, in the order commands run them.
    pub const ALL: [BackendKind; 4] = [
        BackendKind::Cpu,
        BackendKind::Simt,
        BackendKind::Cuda,
        BackendKind::Hip,
    ];

    /// As the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Cpu => "cpu",
            BackendKind::Simt => "simt",
            BackendKind::Cuda => "cuda",
            BackendKind::Hip => "hip",
        }
    }

    /// Whether this binary was built with the backend (cpu always; the others per feature).
    pub fn compiled(self) -> bool {
        match self {
            BackendKind::Cpu => true,
            BackendKind::Simt => cfg!(feature = "simt"),
            BackendKind::Cuda => cfg!(feature = "cuda"),
            BackendKind::Hip => cfg!(feature = "hip"),
        }
    }

    /// Every instance of the backend on this machine: one per device and warp width it runs,
    /// keeping only `warp` when given. The CPU oracle runs both widths.
    pub fn open(self, warp: Option<WarpWidth>) -> Result<Vec<AnyBackend>> {
        let wanted = |w: WarpWidth| warp.is_none_or(|x| x == w);
        match self {
            BackendKind::Cpu => Ok(WarpWidth::ALL
                .into_iter()
                .filter(|&w| wanted(w))
                .map(|w| AnyBackend::Cpu(CpuBackend::new(w)))
                .collect()),
            // At 64 lanes the executor's own arch layer runs AMD's emulated primitives, the
            // code wave64 runs; then the real arch_hip.h at both widths (gfx90a/gfx940 and
            // gfx1030), in lockstep.
            #[cfg(feature = "simt")]
            BackendKind::Simt => wavekit::simt::Arch::ALL
                .into_iter()
                .flat_map(|arch| WarpWidth::ALL.map(|w| (arch, w)))
                .filter(|&(_, w)| wanted(w))
                .map(|(arch, w)| {
                    let emulate = arch == wavekit::simt::Arch::Simt && w == WarpWidth::W64;
                    Ok(AnyBackend::Simt(
                        wavekit::simt::open_arch(arch, w)?.with_emulation(emulate),
                    ))
                })
                .collect(),
            #[cfg(feature = "cuda")]
            BackendKind::Cuda => gpu_devices(
                wavekit::cuda::device_count(),
                "cuda",
                |i| wavekit::cuda::open(i).map(AnyBackend::Cuda),
                warp,
            ),
            #[cfg(feature = "hip")]
            BackendKind::Hip => gpu_devices(
                wavekit::hip::device_count(),
                "hip",
                |i| wavekit::hip::open(i).map(AnyBackend::Hip),
                warp,
            ),
            #[allow(unreachable_patterns)]
            BackendKind::Simt | BackendKind::Cuda | BackendKind::Hip => {
                Err(WavekitError::BackendNotCompiled(self.name()))
            }
        }
    }
}

/// Every device of a GPU backend whose warp width is `warp` (all when `None`); none at all is
/// a `NoDevice` error so `select` can say why the backend was skipped.
#[cfg(any(feature = "cuda", feature = "hip"))]
fn gpu_devices(
    count: usize,
    backend: &'static str,
    open: impl Fn(usize) -> Result<AnyBackend>,
    warp: Option<WarpWidth>,
) -> Result<Vec<AnyBackend>> {
    if count == 0 {
        return Err(WavekitError::NoDevice {
            backend,
            reason: "the runtime reports no device".into(),
        });
    }
    let all = (0..count).map(open).collect::<Result<Vec<_>>>()?;
    Ok(all
        .into_iter()
        .filter(|b| warp.is_none_or(|w| b.warp_width() == w))
        .collect())
}

/// Any backend this binary was built with. Dispatch with `with_backend!`.
// One per process, never in a collection: the GPU variants' size costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum AnyBackend {
    Cpu(CpuBackend),
    #[cfg(feature = "simt")]
    Simt(wavekit::simt::SimtBackend),
    #[cfg(feature = "cuda")]
    Cuda(wavekit::cuda::CudaBackend),
    #[cfg(feature = "hip")]
    Hip(wavekit::hip::HipBackend),
}

/// `with_backend!(any, |b| body)`: runs `body` with `b` bound to the concrete backend inside
/// `any` (a `&AnyBackend`), so `body` may call generic functions over the backend.
macro_rules! with_backend {
    ($any:expr, |$b:ident| $body:expr) => {
        match $any {
            $crate::registry::AnyBackend::Cpu($b) => $body,
            #[cfg(feature = "simt")]
            $crate::registry::AnyBackend::Simt($b) => $body,
            #[cfg(feature = "cuda")]
            $crate::registry::AnyBackend::Cuda($b) => $body,
            #[cfg(feature = "hip")]
            $crate::registry::AnyBackend::Hip($b) => $body,
        }
    };
}
pub(crate) use with_backend;

impl AnyBackend {
    /// The backend's own name: kind, device and warp width (e.g. `cpu/w32`).
    pub fn name(&self) -> String {
        with_backend!(self, |b| wavekit::backend::Backend::name(b))
    }

    /// The warp width this instance runs.
    pub fn warp_width(&self) -> WarpWidth {
        with_backend!(self, |b| wavekit::backend::Backend::warp_width(b))
    }

    /// The kind a user names on the command line to get this backend.
    pub fn kind(&self) -> BackendKind {
        match self {
            AnyBackend::Cpu(_) => BackendKind::Cpu,
            #[cfg(feature = "simt")]
            AnyBackend::Simt(_) => BackendKind::Simt,
            #[cfg(feature = "cuda")]
            AnyBackend::Cuda(_) => BackendKind::Cuda,
            #[cfg(feature = "hip")]
            AnyBackend::Hip(_) => BackendKind::Hip,
        }
    }
}

/// The instances `choice` names: exactly one backend, whose absence is then an error, or, when
/// none is named, every kind of `unnamed` built in (skipping, with a note, those with no device
/// here). A command that runs everything passes `BackendKind::ALL`.
pub fn select(
    choice: Option<BackendKind>,
    warp: Option<WarpWidth>,
    unnamed: &[BackendKind],
) -> Result<Selected> {
    let mut selected = Selected {
        backends: Vec::new(),
        skipped: Vec::new(),
    };
    match choice {
        Some(kind) => selected.backends = kind.open(warp)?,
        None => {
            for &kind in unnamed.iter().filter(|k| k.compiled()) {
                match kind.open(warp) {
                    Ok(found) => selected.backends.extend(found),
                    Err(e) => selected.skipped.push((kind, e)),
                }
            }
        }
    }
    Ok(selected)
}

/// The backends a command runs, and those it could not open.
pub struct Selected {
    /// One instance per device and warp width, kind by kind in the order asked for.
    pub backends: Vec<AnyBackend>,
    /// Compiled-in backends that could not be opened, with why.
    pub skipped: Vec<(BackendKind, WavekitError)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_opens_both_widths_and_filters_by_warp() {
        let all = BackendKind::Cpu.open(None).unwrap();
        let widths: Vec<_> = all.iter().map(AnyBackend::warp_width).collect();
        assert_eq!(widths, vec![WarpWidth::W32, WarpWidth::W64]);
        let only = BackendKind::Cpu.open(Some(WarpWidth::W64)).unwrap();
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].warp_width(), WarpWidth::W64);
    }

    #[test]
    fn a_backend_not_built_is_a_typed_error() {
        assert_eq!(BackendKind::Cuda.compiled(), cfg!(feature = "cuda"));
        assert_eq!(BackendKind::Hip.compiled(), cfg!(feature = "hip"));
        for kind in [BackendKind::Cuda, BackendKind::Hip] {
            match kind.open(None) {
                Err(WavekitError::BackendNotCompiled(name)) => {
                    assert!(!kind.compiled() && name == kind.name(), "{kind:?}")
                }
                other => assert!(
                    kind.compiled(),
                    "{kind:?} is not built in, yet open gave {:?}",
                    other.map(|found| found.len())
                ),
            }
        }
    }
}
