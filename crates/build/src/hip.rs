//! hipcc: compiles the portable csrc kernels into one fat object per source (a code object per
//! `--offload-arch`), archives them as `libwavekit_hip_kernels.a`, compiles the host-only ABI
//! shim (`backends/hip/abi.cpp`) with the system C++ compiler, and links libamdhip64.
//!
//! Environment: `HIPCC` (the compiler), `ROCM_PATH` (the ROCm root, for hipcc, headers and
//! libraries), `WAVEKIT_HIP_ARCHS` (comma-separated offload targets, default below).
//! Exported to the crate (`env!`, re-exported by wavekit-hip's `build_info`):
//! `WAVEKIT_HIP_KERNEL_LIB` (path of the kernel archive, read by tests/hip_code_objects.rs),
//! `WAVEKIT_HIPCC` (the compiler used, for tests/hip_lane_math.rs),
//! `WAVEKIT_HIP_ARCHS` (the targets built) and
//! `WAVEKIT_HIP_ARCHS_SOURCE` (`default` or `WAVEKIT_HIP_ARCHS`).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Two wave64 targets (CDNA2 MI200, CDNA3 MI300) and one wave32 target (RDNA2), all three
/// with device libraries in Debian's ROCm 5.2 (which has none for gfx1100).
const DEFAULT_ARCHS: &[&str] = &["gfx90a", "gfx940", "gfx1030"];

const SETUP_HINT: &str = "install it with `bash scripts/setup-hip.sh` (Debian: hipcc, \
                          libamdhip64-dev), or point HIPCC at hipcc or ROCM_PATH at a ROCm root";

/// Builds the kernels and `abi` (the host-only shim) for the HIP backend.
pub fn build(abi: &Path) {
    for var in ["HIPCC", "ROCM_PATH", "WAVEKIT_HIP_ARCHS"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed={}", abi.display());
    crate::rerun_on_device_layer();

    let hipcc = find_hipcc();
    let rocm = rocm_root(&hipcc);
    let include = rocm.join("include");
    if !include.join("hip/hip_runtime_api.h").is_file() {
        fail(&format!(
            "the HIP headers are missing: {} has no hip/hip_runtime_api.h; {SETUP_HINT}",
            include.display()
        ));
    }
    let (archs, source) = offload_archs();
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let csrc = crate::csrc_dir();
    let sources = crate::sources(&csrc.join("kernels"), "cu");
    if sources.is_empty() {
        fail("csrc/kernels holds no .cu sources to compile for HIP");
    }

    let objects = compile_kernels(&hipcc, &archs, &csrc, &sources, &out.join("hip"));
    let kernel_lib = cc::Build::new()
        .cargo_metadata(false)
        .try_create_archive("wavekit_hip_kernels", &objects)
        .unwrap_or_else(|e| fail(&format!("archiving the HIP kernels failed: {e}")));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=wavekit_hip_kernels");

    // Host-only: the values of the HIP enums and the device-properties layout come from the
    // installed headers instead of being copied into Rust (backends/hip/src/sys.rs reads them).
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .file(abi)
        .include(&include)
        .define("__HIP_PLATFORM_AMD__", "1")
        .warnings_into_errors(true)
        .compile("wavekit_hip_abi");

    for dir in [rocm.join("lib"), rocm.join("lib64")] {
        if dir.join("libamdhip64.so").exists() {
            println!("cargo:rustc-link-search=native={}", dir.display());
            // A ROCm outside the loader's default path (/opt/rocm) is found at run time too.
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
        }
    }
    println!("cargo:rustc-link-lib=dylib=amdhip64");

    println!(
        "cargo:rustc-env=WAVEKIT_HIP_KERNEL_LIB={}",
        kernel_lib.display()
    );
    println!("cargo:rustc-env=WAVEKIT_HIP_ARCHS={}", archs.join(","));
    println!("cargo:rustc-env=WAVEKIT_HIP_ARCHS_SOURCE={source}");
    println!("cargo:rustc-env=WAVEKIT_HIPCC={}", hipcc.display());
}

/// Compiles `sources` (a user's kernels written against csrc/wavekit.h) with hipcc for every
/// offload target into the static library `lib`, linked into the crate whose build script
/// calls this, with libamdhip64.
pub fn compile(lib: &str, sources: &[PathBuf]) {
    for var in ["HIPCC", "ROCM_PATH", "WAVEKIT_HIP_ARCHS"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    crate::rerun_on_device_layer();
    let hipcc = find_hipcc();
    let rocm = rocm_root(&hipcc);
    let (archs, _) = offload_archs();
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let objects = compile_kernels(&hipcc, &archs, &crate::csrc_dir(), sources, &out.join(lib));
    cc::Build::new()
        .cargo_metadata(false)
        .try_create_archive(lib, &objects)
        .unwrap_or_else(|e| fail(&format!("archiving {lib} failed: {e}")));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static={lib}");
    for dir in [rocm.join("lib"), rocm.join("lib64")] {
        if dir.join("libamdhip64.so").exists() {
            println!("cargo:rustc-link-search=native={}", dir.display());
        }
    }
    println!("cargo:rustc-link-lib=dylib=amdhip64");
}

fn fail(msg: &str) -> ! {
    panic!("wavekit `hip` feature: {msg}");
}

/// `HIPCC`, else `$ROCM_PATH/bin/hipcc`, else `hipcc` on PATH.
fn find_hipcc() -> PathBuf {
    if let Some(p) = env::var_os("HIPCC") {
        let p = PathBuf::from(p);
        if !p.is_file() {
            fail(&format!(
                "HIPCC={} is not a file; {SETUP_HINT}",
                p.display()
            ));
        }
        return p;
    }
    if let Some(root) = env::var_os("ROCM_PATH") {
        let p = Path::new(&root).join("bin/hipcc");
        if !p.is_file() {
            fail(&format!(
                "ROCM_PATH is set but {} does not exist; {SETUP_HINT}",
                p.display()
            ));
        }
        return p;
    }
    env::var_os("PATH")
        .and_then(|paths| {
            env::split_paths(&paths)
                .map(|d| d.join("hipcc"))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| {
            fail(&format!(
                "hipcc was not found (HIPCC, ROCM_PATH, PATH); {SETUP_HINT}"
            ))
        })
}

/// `ROCM_PATH`, else the prefix hipcc is installed under (`/usr` for Debian's packages,
/// `/opt/rocm` for AMD's).
fn rocm_root(hipcc: &Path) -> PathBuf {
    if let Some(root) = env::var_os("ROCM_PATH") {
        return PathBuf::from(root);
    }
    let real = hipcc.canonicalize().unwrap_or_else(|_| hipcc.to_path_buf());
    let bin = real
        .parent()
        .unwrap_or_else(|| fail("hipcc has no parent directory"));
    // AMD's layout also has /opt/rocm/hip/bin/hipcc.
    let prefix = bin.parent().unwrap_or(bin);
    if prefix.ends_with("hip") && !prefix.join("include/hip").is_dir() {
        return prefix.parent().unwrap_or(prefix).to_path_buf();
    }
    prefix.to_path_buf()
}

/// The offload targets: `WAVEKIT_HIP_ARCHS` (comma-separated, e.g. `gfx90a,gfx1100`) or the
/// default list. Each is `gfx<hex>` optionally followed by `:feature+`/`:feature-`.
fn offload_archs() -> (Vec<String>, &'static str) {
    let (list, source): (Vec<String>, _) = match env::var("WAVEKIT_HIP_ARCHS") {
        Ok(v) if !v.trim().is_empty() => (
            v.split(',')
                .map(|a| a.trim().to_string())
                .filter(|a| !a.is_empty())
                .collect(),
            "WAVEKIT_HIP_ARCHS",
        ),
        _ => (
            DEFAULT_ARCHS.iter().map(|a| a.to_string()).collect(),
            "default",
        ),
    };
    let mut archs: Vec<String> = Vec::new();
    for arch in list {
        if !valid_arch(&arch) {
            fail(&format!(
                "WAVEKIT_HIP_ARCHS entry `{arch}` is not an AMD GPU target such as gfx90a or \
                 gfx90a:xnack-"
            ));
        }
        if !archs.contains(&arch) {
            archs.push(arch);
        }
    }
    (archs, source)
}

fn valid_arch(arch: &str) -> bool {
    let mut parts = arch.split(':');
    let proc_ok = parts
        .next()
        .and_then(|p| p.strip_prefix("gfx"))
        .is_some_and(|id| {
            !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        });
    proc_ok
        && parts.all(|f| {
            f.len() > 1
                && (f.ends_with('+') || f.ends_with('-'))
                && f[..f.len() - 1]
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-')
        })
}

/// One hipcc run per source, at most NUM_JOBS at a time (each run already compiles a device
/// pass per target).
fn compile_kernels(
    hipcc: &Path,
    archs: &[String],
    include: &Path,
    sources: &[PathBuf],
    dir: &Path,
) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir)
        .unwrap_or_else(|e| fail(&format!("cannot create {}: {e}", dir.display())));
    let jobs = env::var("NUM_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or(1usize)
        .max(1);
    let mut objects = Vec::new();
    for chunk in sources.chunks(jobs) {
        let results: Vec<(PathBuf, std::io::Result<std::process::Output>, String)> =
            std::thread::scope(|s| {
                let handles: Vec<_> = chunk
                    .iter()
                    .map(|src| {
                        let obj = dir
                            .join(src.file_stem().expect("source name"))
                            .with_extension("o");
                        let mut cmd = hipcc_command(hipcc, archs, include, src, &obj);
                        let shown = format!("{cmd:?}");
                        s.spawn(move || (obj, cmd.output(), shown))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("hipcc thread"))
                    .collect()
            });
        for (obj, output, shown) in results {
            let output = output.unwrap_or_else(|e| fail(&format!("cannot run {shown}: {e}")));
            let stderr = String::from_utf8_lossy(&output.stderr);
            if !output.status.success() {
                fail(&format!(
                    "hipcc failed ({}):\n{shown}\n{stderr}",
                    output.status
                ));
            }
            for line in stderr.lines().filter(|l| !l.trim().is_empty()) {
                println!("cargo:warning=hipcc: {line}");
            }
            objects.push(obj);
        }
    }
    objects
}

fn hipcc_command(
    hipcc: &Path,
    archs: &[String],
    include: &Path,
    src: &Path,
    obj: &Path,
) -> Command {
    let mut cmd = Command::new(hipcc);
    // hipcc picks the NVIDIA platform when it sees nvcc but no clang++ (the `cuda,hip` build).
    cmd.env("HIP_PLATFORM", "amd");
    cmd.args([
        "-c",
        "-x",
        "hip",
        "-std=c++17",
        "-O3",
        "-fPIC",
        "-Wall",
        "-Wextra",
    ]);
    // docs/SEMANTICS.md: no fused multiply-add anywhere; subnormals kept as the CPU keeps them.
    cmd.args(["-ffp-contract=off", "-fno-gpu-flush-denormals-to-zero"]);
    // The HIP headers define this themselves, but csrc/wavekit/width.h picks the vendor before
    // it includes them.
    cmd.arg("-D__HIP_PLATFORM_AMD__=1");
    cmd.arg("-I").arg(include);
    for arch in archs {
        cmd.arg(format!("--offload-arch={arch}"));
    }
    cmd.arg(src).arg("-o").arg(obj);
    cmd
}
