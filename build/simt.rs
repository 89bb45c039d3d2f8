//! The SIMT executor half of the build, always on (CI has a C++ compiler but no GPU one): the
//! executor core once, then the device sources it runs in four flavours, each in its own
//! namespace (csrc/wavekit/width.h) and with its own launcher table: csrc/kernels and the
//! pitfall kernels of csrc/simt/pitfalls against the executor's arch_simt.h at 32 and 64 lanes
//! (`wk_simt32_launchers`, ...), and csrc/kernels with the builtin probes of csrc/simt/amdgcn
//! against the real csrc/wavekit/arch_hip.h at 64 lanes (gfx90a/gfx940) and 32 (gfx1030), on
//! the AMDGCN builtins of csrc/simt/amdgcn (`wk_simthip64_launchers`, ...).

use std::path::{Path, PathBuf};

const CORE: &[&str] = &[
    "executor.cpp",
    "fiber.cpp",
    "session.cpp",
    "shared.cpp",
    "amdgcn/wave.cpp",
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

/// One build of the device sources: which arch layer they run on.
struct Flavour {
    /// Prefix of the namespace and table symbol: `wk_{prefix}{width}`.
    prefix: &'static str,
    /// What csrc/wavekit/width.h includes as the arch layer.
    header: &'static str,
    sources: Vec<PathBuf>,
    /// Searched before csrc/simt (the HIP runtime shim).
    include: Option<&'static str>,
    /// The host compiler's optimisation level and extra flags for this flavour.
    opt: u32,
    flags: &'static [&'static str],
}

pub fn build() {
    let simt = Path::new("csrc/simt");
    let kernels = sources(Path::new("csrc/kernels"), "cu");
    // The real kernels and launcher table, and the seeds' pitfall kernels.
    let mut own = kernels.clone();
    own.extend(sources(&simt.join("pitfalls"), "cu"));
    // The real kernels on the real AMD arch layer, and the probes of its builtins.
    let mut hip = kernels;
    hip.extend(sources(&simt.join("amdgcn"), "cu"));
    let flavours = [
        Flavour {
            prefix: "simt",
            header: "<arch_simt.h>",
            sources: own,
            include: None,
            opt: 2,
            flags: &[],
        },
        Flavour {
            prefix: "simthip",
            header: "\"arch_hip.h\"",
            sources: hip,
            include: Some("csrc/simt/amdgcn"),
            // An AMD wave's lanes move as one: every basic block calls the executor
            // (trace-pc), which runs the blocks of a diverged warp lowest address first, so
            // the blocks must lie in program order (csrc/simt/amdgcn/wave.cpp). -O0 emits them
            // in source order; -O1 and -O2, even without block reordering, moved branch bodies
            // after the code that follows them (in warp_reduce and tests/simt_amdgcn.rs).
            opt: 0,
            flags: &["-fsanitize-coverage=trace-pc"],
        },
    ];
    for f in &flavours {
        for width in [32u32, 64] {
            let ns = format!("wk_{}{width}", f.prefix);
            let mut b = cc::Build::new();
            base(&mut b)
                .opt_level(f.opt)
                // The portable layer names no executor: the arch header, namespace and table
                // symbol of each flavour come from here (csrc/wavekit/width.h).
                .define("WK_ARCH_HEADER", Some(f.header))
                .define("WK_NS", Some(ns.as_str()))
                .define(
                    "WK_LAUNCHERS_SYMBOL",
                    Some(format!("{ns}_launchers").as_str()),
                )
                .define("WK_WARP_SIZE", Some(width.to_string().as_str()));
            if let Some(dir) = f.include {
                b.include(dir);
            }
            b.include(simt)
                // .cu sources are C++ for the host compiler.
                .flag("-x")
                .flag("c++")
                // `#pragma unroll` means nothing to the host compiler.
                .flag("-Wno-unknown-pragmas");
            for flag in f.flags {
                b.flag(flag);
            }
            b.files(&f.sources).compile(&format!("{ns}_device"));
        }
    }
    // Last, so the linker meets the core after the device code that calls it.
    let mut core = cc::Build::new();
    base(&mut core)
        .files(CORE.iter().map(|f| simt.join(f)))
        .compile("wk_simt_core");
}
