//! The SIMT executor half of the build, always on (CI has a C++ compiler but no GPU one): the
//! executor core once, then every device source it runs (csrc/kernels and the pitfall kernels
//! of csrc/simt/pitfalls) twice, at 32 and at 64 lanes, each width in its own namespace
//! (csrc/wavekit/width.h) and with its own launcher table (`wk_simt32_launchers`, ...).

use std::path::{Path, PathBuf};

const CORE: &[&str] = &[
    "checks.cpp",
    "executor.cpp",
    "fiber.cpp",
    "session.cpp",
    "shared.cpp",
];

fn sources(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == ext));
    files.sort();
    files
}

fn base(build: &mut cc::Build) -> &mut cc::Build {
    // Optimised even in debug builds: the executor runs whole kernels per test. Contraction off
    // as for the GPU builds, so float results are bit for bit those of docs/SEMANTICS.md.
    build
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .debug(false)
        .flag("-ffp-contract=off")
        .flag("-fno-strict-aliasing")
        .warnings(true)
        .extra_warnings(true)
}

pub fn build() {
    let simt = Path::new("csrc/simt");
    // The real kernels and launcher table, and the seeds' pitfall kernels.
    let mut device = sources(Path::new("csrc/kernels"), "cu");
    device.extend(sources(&simt.join("pitfalls"), "cu"));
    for width in [32u32, 64] {
        let mut b = cc::Build::new();
        base(&mut b)
            // The portable layer names no executor: the arch header, namespace and table
            // symbol of each width come from here (csrc/wavekit/width.h).
            .define("WK_ARCH_HEADER", Some("<arch_simt.h>"))
            .define("WK_NS", Some(format!("wk_simt{width}").as_str()))
            .define(
                "WK_LAUNCHERS_SYMBOL",
                Some(format!("wk_simt{width}_launchers").as_str()),
            )
            .define("WK_WARP_SIZE", Some(width.to_string().as_str()))
            .include(simt)
            // .cu sources are C++ for the host compiler.
            .flag("-x")
            .flag("c++")
            // `#pragma unroll` means nothing to the host compiler.
            .flag("-Wno-unknown-pragmas")
            .files(&device)
            .compile(&format!("wk_simt_w{width}"));
    }
    corpus(simt);
    // Last, so the linker meets the core after the device code that calls it.
    let mut core = cc::Build::new();
    base(&mut core)
        .files(CORE.iter().map(|f| simt.join(f)))
        .compile("wk_simt_core");
}

/// The hazard corpus (csrc/simt/corpus), at both widths like the kernels, and with
/// `-fsanitize=shift`: the executor defines UBSan's shift handlers (checks.cpp), so a shift past
/// the width of its type becomes a report naming the lane and line.
fn corpus(simt: &Path) {
    let files = sources(&simt.join("corpus"), "cu");
    for width in [32u32, 64] {
        let mut b = cc::Build::new();
        base(&mut b)
            .define("WK_ARCH_HEADER", Some("<arch_simt.h>"))
            .define("WK_NS", Some(format!("wk_simt{width}").as_str()))
            .define(
                "WK_LAUNCHERS_SYMBOL",
                Some(format!("wk_simt{width}_launchers").as_str()),
            )
            .define("WK_WARP_SIZE", Some(width.to_string().as_str()))
            .include(simt)
            .flag("-x")
            .flag("c++")
            .flag("-fsanitize=shift")
            .files(&files)
            .compile(&format!("wk_simt_corpus_w{width}"));
    }
}
