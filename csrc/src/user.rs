//! Users' kernels: `.cu` files written against csrc/wavekit.h (docs/DEVICE_API.md), compiled
//! for the SIMT executor at 32 and 64 lanes (always), and with nvcc or hipcc.
//!
//! From a user's build script (with `wavekit-kernels` in `[build-dependencies]`):
//!
//! ```no_run
//! wavekit_kernels::user::executor("my_kernels", &["kernels/my_kernel.cu"]);
//! ```
//!
//! then from Rust, `wavekit::simt::user_kernel!(my_kernel)` finds each kernel the file exports
//! with `WK_EXPORT_KERNEL(my_kernel)`, at both widths, to run under a hazard-checking
//! `wavekit::simt::Session`. `wavekit check FILE.cu` compiles the same way, into a shared
//! object per width ([`executor_args`]).

use std::path::{Path, PathBuf};

/// The namespace (and symbol prefix) of a user build at `width` lanes: `wk_user32`,
/// `wk_user64`. An exported kernel's descriptor is `<namespace>_kernel_<name>`.
pub fn namespace(width: u32) -> String {
    format!("wk_user{width}")
}

/// The host C++ compiler's arguments that build a user's `.cu` for the executor at `width`
/// lanes (32 or 64), besides the sources and the output: the language and standard, the arch
/// layer and namespace of the width, csrc/ on the include path, the flags the executor's own
/// kernels get (no contraction, shift checks).
pub fn executor_args(width: u32) -> Vec<String> {
    executor_args_at(width, &crate::csrc_dir())
}

/// As [`executor_args`], with the headers read from `csrc` (a folder laid out as csrc/:
/// `wavekit.h`, `wavekit/`, `simt/`), such as the copy `wavekit::simt::user::SourceBuild`
/// writes from the headers embedded in the library.
pub fn executor_args_at(width: u32, csrc: &Path) -> Vec<String> {
    assert!(
        width == 32 || width == 64,
        "the executor runs 32 or 64 lanes"
    );
    let ns = namespace(width);
    let mut args: Vec<String> = ["-x", "c++", "-std=c++17", "-O2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(crate::simt::DEVICE_FLAGS.iter().map(|s| s.to_string()));
    args.extend([
        "-DWK_ARCH_HEADER=<arch_simt.h>".to_string(),
        format!("-DWK_NS={ns}"),
        format!("-DWK_LAUNCHERS_SYMBOL={ns}_launchers"),
        format!("-DWK_WARP_SIZE={width}"),
        format!("-I{}", csrc.display()),
        format!("-I{}", csrc.join("simt").display()),
    ]);
    args
}

/// Compiles `sources` for the SIMT executor at 32 and 64 lanes into static libraries
/// `<lib>_w32` and `<lib>_w64`, linked into the crate whose build script calls this (which
/// also depends on `wavekit` with its default `simt` feature, for the executor itself).
pub fn executor<P: AsRef<Path>>(lib: &str, sources: &[P]) {
    // docs.rs (DOCS_RS): nothing to compile or link for rustdoc, and no compiler to do it.
    if crate::docs_only() {
        return;
    }
    let sources: Vec<PathBuf> = sources.iter().map(|p| p.as_ref().to_path_buf()).collect();
    for s in &sources {
        println!("cargo:rerun-if-changed={}", s.display());
    }
    crate::rerun_on_device_layer();
    println!(
        "cargo:rerun-if-changed={}",
        crate::csrc_dir().join("wavekit.h").display()
    );
    for width in [32u32, 64] {
        let mut b = cc::Build::new();
        b.cpp(true).opt_level(2).debug(false).warnings(true);
        for arg in executor_args(width) {
            b.flag(&arg);
        }
        b.files(&sources).compile(&format!("{lib}_w{width}"));
    }
}

/// Compiles `sources` with nvcc (as wavekit's own CUDA kernels: no contraction, every target
/// of `WAVEKIT_CUDA_ARCHS`) into the static library `lib`; the exported kernels are
/// `wk_cuda_kernel_<name>`.
pub fn cuda<P: AsRef<Path>>(lib: &str, sources: &[P]) {
    let sources: Vec<PathBuf> = sources.iter().map(|p| p.as_ref().to_path_buf()).collect();
    crate::cuda::compile(lib, &sources);
    crate::cuda::link_runtime();
}

/// Compiles `sources` for every offload target of `WAVEKIT_HIP_ARCHS` (hipcc, and clang 19 for
/// the targets the installed ROCm predates, such as gfx942 on ROCm 5.2) into the static
/// library `lib`; the exported kernels are `wk_hip_kernel_<name>`.
pub fn hip<P: AsRef<Path>>(lib: &str, sources: &[P]) {
    let sources: Vec<PathBuf> = sources.iter().map(|p| p.as_ref().to_path_buf()).collect();
    crate::hip::compile(lib, &sources);
}
