//! nvcc through `cc`: compiles `.cu` files into a static library and links the static CUDA
//! runtime. The driver itself is loaded at run time (cudarc, dynamic loading), so a binary
//! built on a machine without a GPU runs on one that has it.
//!
//! nvcc is looked up in this order: `NVCC`, `CUDA_HOME`/`CUDA_PATH` (bin/nvcc), the pinned
//! wheels that scripts/setup-cuda.sh installs into a virtual environment named by
//! `WAVEKIT_CUDA_VENV` (the repository's .cargo/config.toml names its `.venv-cuda/`), then PATH.
//! Target architectures: `WAVEKIT_CUDA_ARCHS` (comma-separated compute capabilities, default
//! "80,90"); machine code for each plus PTX of the highest, so newer GPUs JIT it.

use std::env;
use std::path::{Path, PathBuf};

const DEFAULT_ARCHS: &str = "80,90";

/// Compiles `sources` with nvcc into the static library `lib` (linked into the crate whose
/// build script calls this), with `csrc/` on the include path.
pub fn compile(lib: &str, sources: &[PathBuf]) {
    // docs.rs (DOCS_RS): nothing to compile or link for rustdoc, and no compiler to do it.
    if crate::docs_only() {
        return;
    }
    for var in [
        "NVCC",
        "CUDA_HOME",
        "CUDA_PATH",
        "WAVEKIT_CUDA_ARCHS",
        "WAVEKIT_CUDA_VENV",
        "PATH",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    crate::rerun_on_device_layer();
    let nvcc = nvcc();
    let archs = env::var("WAVEKIT_CUDA_ARCHS").unwrap_or_else(|_| DEFAULT_ARCHS.to_string());
    let archs = parse_archs(&archs);

    let mut b = cc::Build::new();
    // Flags are all set here: cc's defaults are gcc's (-ffunction-sections, and -G in debug
    // builds, which would make device code unoptimised), and nvcc rejects or misuses them.
    b.cuda(true)
        .compiler(&nvcc)
        .no_default_flags(true)
        .debug(false)
        .opt_level(3)
        .include(crate::csrc_dir())
        .flag("-std=c++17")
        .flag("-O3")
        // SEMANTICS.md: no fused multiply-add anywhere, IEEE add/multiply, no flush to zero.
        .flag("--fmad=false")
        .flag("--ftz=false")
        .flag("--prec-div=true")
        .flag("--prec-sqrt=true")
        .flag("-Xcompiler=-fPIC")
        .warnings(false);
    for a in &archs {
        b.flag(format!("-gencode=arch=compute_{a},code=sm_{a}"));
    }
    let top = archs.last().expect("at least one arch");
    b.flag(format!("-gencode=arch=compute_{top},code=compute_{top}"));
    b.files(sources);
    crate::cache::compile(&mut b, lib);
}

/// The nvcc this build uses; stops the build with how to install one if there is none.
pub fn nvcc() -> PathBuf {
    find_nvcc().unwrap_or_else(|| {
        panic!(
            "the `cuda` feature needs nvcc, and none was found (looked at $NVCC, $CUDA_HOME/bin, \
             $CUDA_PATH/bin, $WAVEKIT_CUDA_VENV and PATH). Run wavekit's \
             `scripts/setup-cuda.sh` to install the pinned CUDA 13.0 compiler wheels into \
             .venv-cuda/ and set WAVEKIT_CUDA_VENV to that folder, or set NVCC=/path/to/nvcc."
        )
    })
}

/// The folder holding NVRTC (`libnvrtc.so.*` and its builtins) of the toolkit or wheels nvcc
/// was found in, if it has one: the CUDA backend's run-time compiles look there after the
/// loader's own search (scripts/setup-cuda.sh pins the wheel).
pub fn nvrtc_dir() -> Option<PathBuf> {
    if crate::docs_only() {
        return None;
    }
    let top = nvcc().parent()?.parent()?.to_path_buf();
    ["lib", "lib64", "targets/x86_64-linux/lib"]
        .iter()
        .map(|d| top.join(d))
        .find(|d| {
            std::fs::read_dir(d).is_ok_and(|mut it| {
                it.any(|e| {
                    e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libnvrtc.so"))
                })
            })
        })
}

/// Links the static CUDA runtime that compiled kernels call (once, by the CUDA backend).
pub fn link_runtime() {
    // docs.rs (DOCS_RS): nothing to compile or link for rustdoc, and no compiler to do it.
    if crate::docs_only() {
        return;
    }
    let nvcc = nvcc();
    let libdir = cudart_dir(&nvcc).unwrap_or_else(|| {
        panic!(
            "found nvcc at {} but no libcudart_static.a beside it (lib, lib64, \
             targets/x86_64-linux/lib); run scripts/setup-cuda.sh",
            nvcc.display()
        )
    });
    println!("cargo:rustc-link-search=native={}", libdir.display());
    println!("cargo:rustc-link-lib=static=cudart_static");
    for lib in ["dl", "rt", "pthread", "stdc++"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
}

fn parse_archs(spec: &str) -> Vec<u32> {
    let mut archs: Vec<u32> = spec
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.trim_start_matches("sm_").parse().unwrap_or_else(|_| {
                panic!("WAVEKIT_CUDA_ARCHS: `{s}` is not a compute capability like 90")
            })
        })
        .collect();
    archs.sort_unstable();
    archs.dedup();
    assert!(
        !archs.is_empty(),
        "WAVEKIT_CUDA_ARCHS names no architecture"
    );
    archs
}

fn is_file(p: &Path) -> bool {
    p.is_file()
}

fn find_nvcc() -> Option<PathBuf> {
    if let Some(p) = env::var_os("NVCC") {
        let p = PathBuf::from(p);
        if is_file(&p) {
            return Some(p);
        }
        panic!("NVCC={} does not name a file", p.display());
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = env::var_os(var) {
            let p = PathBuf::from(home).join("bin/nvcc");
            if is_file(&p) {
                return Some(p);
            }
        }
    }
    if let Some(p) = env::var_os("WAVEKIT_CUDA_VENV").and_then(|v| venv_nvcc(Path::new(&v))) {
        return Some(p);
    }
    env::var_os("PATH").and_then(|path| {
        env::split_paths(&path)
            .map(|d| d.join("nvcc"))
            .find(|p| is_file(p))
    })
}

/// `<venv>/lib/python3.*/site-packages/nvidia/cu13/bin/nvcc`, whatever the Python version.
fn venv_nvcc(venv: &Path) -> Option<PathBuf> {
    let lib = std::fs::read_dir(venv.join("lib")).ok()?;
    let mut found: Vec<PathBuf> = lib
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("site-packages/nvidia/cu13/bin/nvcc"))
        .filter(|p| is_file(p))
        .collect();
    found.sort();
    found.pop()
}

fn cudart_dir(nvcc: &Path) -> Option<PathBuf> {
    let top = nvcc.parent()?.parent()?;
    ["lib", "lib64", "targets/x86_64-linux/lib"]
        .iter()
        .map(|d| top.join(d))
        .find(|d| d.join("libcudart_static.a").is_file())
}
