//! The SIMT executor's build, with the host C++ compiler (C++17): the executor core once, then
//! every device source it runs (csrc/kernels and the pitfall kernels of csrc/simt/pitfalls)
//! twice, at 32 and at 64 lanes, each width in its own namespace and with its own launcher
//! table (`wk_simt32_launchers`, ...), named on the command line (csrc/wavekit/width.h).

const CORE: &[&str] = &["executor.cpp", "fiber.cpp", "session.cpp", "shared.cpp"];

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

/// Builds the executor core and the kernels it runs, at both widths.
pub fn build() {
    crate::rerun_on_device_layer();
    let csrc = crate::csrc_dir();
    let simt = csrc.join("simt");
    println!("cargo:rerun-if-changed={}", simt.display());
    // The real kernels and launcher table, and the seeds' pitfall kernels.
    let mut device = crate::sources(&csrc.join("kernels"), "cu");
    device.extend(crate::sources(&simt.join("pitfalls"), "cu"));
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
            .include(&simt)
            // .cu sources are C++ for the host compiler.
            .flag("-x")
            .flag("c++")
            // `#pragma unroll` means nothing to the host compiler.
            .flag("-Wno-unknown-pragmas")
            .files(&device)
            .compile(&format!("wk_simt_w{width}"));
    }
    // Last, so the linker meets the core after the device code that calls it.
    let mut core = cc::Build::new();
    base(&mut core)
        .files(CORE.iter().map(|f| simt.join(f)))
        .compile("wk_simt_core");
}
