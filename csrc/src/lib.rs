//! wavekit-kernels: what wavekit's build scripts share, as a build-dependency.
//!
//! - [`cuda`]: find nvcc (`NVCC`, `CUDA_HOME`/`CUDA_PATH`, the pinned wheels of
//!   scripts/setup-cuda.sh in `$WAVEKIT_CUDA_VENV`, `PATH`) and compile `.cu` files for the target
//!   architectures, with the flags the canonical float order needs (no FMA, no flush to zero).
//! - [`hip`]: find hipcc and ROCm and compile `.cu` files as HIP for every offload target,
//!   with clang 19 for the targets the installed ROCm has no device libraries for (gfx942 on
//!   Debian's ROCm 5.2), all in one offload bundle per object.
//! - [`simt`]: compile device code for the SIMT executor with the host C++ compiler.
//! - [`user`]: compile a user's `.cu` files, written against csrc/wavekit.h, for the executor
//!   at 32 and 64 lanes (from a user's build script, or `wavekit check`), with nvcc or hipcc.
//! - [`plain`]: take a user's plain CUDA or HIP file as it is (no wavekit dialect) and build
//!   the kernels asked for at 32 or 64 lanes into a shared library (`wavekit check`).
//! - [`cache`]: keep the compiled kernel archives by what they are compiled from, so that
//!   cargo's other variants of a build script (clippy's, a test build's) do not compile the
//!   kernels again.
//! - [`launchers`]: generate the Rust mirror of the launcher table from
//!   csrc/wavekit/launchers.def.
//!
//! How it fits: `wavekit-gpu`, `wavekit-simt`, `wavekit-cuda`, `wavekit-hip` and
//! `wavekit-bench` name this crate in `[build-dependencies]`; it depends on `cc` and
//! `wavekit-core` (whose error type [`plain`] returns). The device sources are this package's
//! own files (the repository's `csrc/`, this crate's folder in a registry), found through
//! [`csrc_dir`], so a build from the published crates reads nothing above a package.
//!
//! On docs.rs ([`docs_only`]: `DOCS_RS` set) the backends' build scripts compile no kernels and
//! link nothing: the documentation needs only the Rust code, and docs.rs has no nvcc or hipcc.

#![warn(missing_debug_implementations)]

pub mod cache;
pub mod cuda;
pub mod hip;
pub mod launchers;
pub mod plain;
pub mod simt;
pub mod user;

use std::path::{Path, PathBuf};

/// wavekit's portable device sources: `wavekit.h`, `wavekit/` (the device layer), `kernels/`,
/// `simt/`, `bench/`: this package's own folder.
pub fn csrc_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether this build only documents the crates (docs.rs sets `DOCS_RS`): the backends' build
/// scripts then compile no device code, call neither nvcc nor hipcc nor the host C++ compiler,
/// and emit no link lines, since rustdoc needs none of it.
pub fn docs_only() -> bool {
    println!("cargo:rerun-if-env-changed=DOCS_RS");
    std::env::var_os("DOCS_RS").is_some()
}

/// The files in `dir` ending in `.ext`, sorted; tells cargo to rerun when the folder changes.
pub fn sources(dir: &Path, ext: &str) -> Vec<PathBuf> {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// Asks cargo to rerun the build script when the shared device layer or kernel headers change.
pub fn rerun_on_device_layer() {
    let csrc = csrc_dir();
    for d in ["wavekit", "kernels"] {
        println!("cargo:rerun-if-changed={}", csrc.join(d).display());
    }
}
