//! The SIMT executor's build, with the host C++ compiler (C++17): the executor core once, then
//! the device sources it runs in four flavours, each in its own namespace and with its own
//! launcher table, named on the command line (csrc/wavekit/width.h): csrc/kernels, the pitfall
//! kernels of csrc/simt/pitfalls and the hazard corpus of csrc/simt/corpus against the
//! executor's arch_simt.h at 32 and 64 lanes (`wk_simt32_launchers`, ...), and csrc/kernels with
//! the builtin probes of csrc/simt/amdgcn against the real csrc/wavekit/arch_hip.h at 64 lanes
//! (gfx90a/gfx940) and 32 (gfx1030), on the AMDGCN builtins of csrc/simt/amdgcn
//! (`wk_simthip64_launchers`, ...).

use std::path::PathBuf;

const CORE: &[&str] = &[
    "checks.cpp",
    "collectives.cpp",
    "cooperative.cpp",
    "executor.cpp",
    "names.cpp",
    "fiber.cpp",
    "session.cpp",
    "shared.cpp",
    "raw.cpp",
    "tsan.cpp",
    "fault.cpp",
    "symbolize.cpp",
    "amdgcn/wave.cpp",
];

/// Flags every piece of device code the executor runs is compiled with (its own kernels and
/// users', crate::user): contraction off as for the GPU builds, so float results are bit for bit
/// those of docs/SEMANTICS.md; `#pragma unroll` means nothing to the host compiler; and a shift
/// past its type's width becomes an executor report naming the lane (checks.cpp defines UBSan's
/// handlers; no UBSan runtime is linked).
pub const DEVICE_FLAGS: &[&str] = &[
    "-ffp-contract=off",
    "-fno-strict-aliasing",
    "-Wno-unknown-pragmas",
    "-fsanitize=shift",
];

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
    include: Option<PathBuf>,
    /// The host compiler's optimisation level and extra flags for this flavour.
    opt: u32,
    flags: &'static [&'static str],
}

/// Builds the executor core and the kernels it runs, in every flavour.
pub fn build() {
    // docs.rs (DOCS_RS): nothing to compile or link for rustdoc, and no compiler to do it.
    if crate::docs_only() {
        return;
    }
    crate::rerun_on_device_layer();
    let csrc = crate::csrc_dir();
    let simt = csrc.join("simt");
    println!("cargo:rerun-if-changed={}", simt.display());
    let kernels = crate::sources(&csrc.join("kernels"), "cu");
    // The real kernels and launcher table, the seeds' pitfall kernels and the hazard corpus.
    let mut own = kernels.clone();
    own.extend(crate::sources(&simt.join("pitfalls"), "cu"));
    own.extend(crate::sources(&simt.join("corpus"), "cu"));
    // The real kernels on the real AMD arch layer, and the probes of its builtins.
    let mut hip = kernels;
    hip.extend(crate::sources(&simt.join("amdgcn"), "cu"));
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
            include: Some(simt.join("amdgcn")),
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
                .define("WK_WARP_SIZE", Some(width.to_string().as_str()))
                // The device reduce's two-launch path from two tiles, so that the conformance
                // suite's small inputs run it too (csrc/kernels/device_reduce.cu).
                .define("WK_REDUCE_TWO_LAUNCH_TILES", Some("2"))
                // Its 16-bit floats' four tiles a block from two tiles.
                .define("WK_REDUCE_HALF_WIDE_FROM_TILES", Some("2"))
                // The partition's two-tiles-a-block shape from two tiles (partition.cu).
                .define("WK_PARTITION_WIDE_FROM_TILES", Some("2"))
                // Its span scan by rows from three spans (partition.cu).
                .define("WK_PARTITION_FEW_SPANS", Some("2"))
                // The scan's four-tiles-a-block shape from two tiles (device_scan.cu).
                .define("WK_SCAN_WIDE_FROM_TILES", Some("2"))
                // The 16-bit scan's pairs kernel from two tiles, two tiles a block
                // (device_scan_pairs.h): blocks that start inside a group of four tiles
                // (tile_groups.h), a look-back over groups from the fifth tile.
                .define("WK_SCAN_PAIRS_FROM_TILES", Some("2"))
                .define("WK_SCAN_PAIRS_TILES", Some("2"));
            if let Some(dir) = &f.include {
                b.include(dir);
            }
            b.include(&simt)
                // .cu sources are C++ for the host compiler.
                .flag("-x")
                .flag("c++");
            for flag in DEVICE_FLAGS.iter().chain(f.flags) {
                b.flag(flag);
            }
            crate::cache::compile(b.files(&f.sources), &format!("{ns}_device"));
        }
    }
    // Last, so the linker meets the core after the device code that calls it.
    let mut core = cc::Build::new();
    crate::cache::compile(
        base(&mut core).files(CORE.iter().map(|f| simt.join(f))),
        "wk_simt_core",
    );
}
