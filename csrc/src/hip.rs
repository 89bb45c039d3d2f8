//! The HIP build: compiles the portable csrc kernels into one fat object per source (a code
//! object per offload target in one offload bundle), archives them as
//! `libwavekit_hip_kernels.a`, compiles the host-only ABI shim (`backends/hip/abi.cpp`) with
//! the system C++ compiler, and links libamdhip64.
//!
//! Per source: hipcc compiles the device code for the targets the installed ROCm has device
//! libraries for (one bundle), clang (csrc/src/hip/clang.rs) those it has none for
//! (gfx942 on Debian's ROCm 5.2), the build adds clang's code objects to hipcc's bundle
//! (csrc/src/hip/bundle.rs), and hipcc compiles the host side around the bundle,
//! as its own one-step compile does (`-fcuda-include-gpubinary`): the host object is the one
//! hipcc alone would make, registering every target's kernels from one bundle.
//!
//! Environment: `HIPCC` (the compiler), `ROCM_PATH` (the ROCm root, for hipcc, headers and
//! libraries), `WAVEKIT_HIP_ARCHS` (comma-separated offload targets, default below),
//! `WAVEKIT_HIP_CLANG` and `HIP_DEVICE_LIB_PATH` (csrc/src/hip/clang.rs).
//! Exported to the crate (`env!`, re-exported by wavekit-hip's `build_info`):
//! `WAVEKIT_HIP_KERNEL_LIB` (path of the kernel archive, read by tests/hip_code_objects.rs),
//! `WAVEKIT_HIPCC` (the compiler used, for tests/hip_lane_math.rs),
//! `WAVEKIT_HIP_ARCHS` (the targets built),
//! `WAVEKIT_HIP_ARCHS_SOURCE` (`default` or `WAVEKIT_HIP_ARCHS`),
//! `WAVEKIT_HIP_CLANG` (the clang++ used, empty when hipcc built every target) and
//! `WAVEKIT_HIP_CLANG_ARCHS` (the targets clang built, comma-separated, maybe empty).

mod bundle;
mod clang;
mod kernels;

use crate::cache;
use std::collections::hash_map::DefaultHasher;
use std::env;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// Two wave64 targets (CDNA2 MI200, CDNA3 MI300: gfx942, what MI300A/MI300X report) and one
/// wave32 target (RDNA2). hipcc builds gfx90a and gfx1030; ROCm 5.2 has no device libraries for
/// gfx942, which clang 19 builds (csrc/src/hip/clang.rs). gfx940 (MI300's
/// pre-production target, the one ROCm 5.2 knows; ROCm 6.4 dropped it) is not built by
/// default: no shipped GPU runs it, and it was a quarter of CI's HIP compile.
const DEFAULT_ARCHS: &[&str] = &["gfx90a", "gfx942", "gfx1030"];

/// The environment that changes what the HIP build compiles.
const ENV_VARS: &[&str] = &[
    "HIPCC",
    "ROCM_PATH",
    "WAVEKIT_HIP_ARCHS",
    "WAVEKIT_HIP_CLANG",
    "HIP_DEVICE_LIB_PATH",
];

/// What compiles the kernels: hipcc for the targets the installed ROCm has device libraries
/// for, clang for the others.
struct Toolchain {
    hipcc: PathBuf,
    rocm: PathBuf,
    hipcc_archs: Vec<String>,
    clang: Option<ClangTargets>,
}

/// clang, its device-library folder and the targets it builds.
struct ClangTargets {
    clang: PathBuf,
    libs: PathBuf,
    archs: Vec<String>,
}

/// Splits `archs` between hipcc and clang. Without ROCm device libraries where
/// [`clang::rocm_device_libs`] looks, every target is hipcc's (its own driver finds them).
fn toolchain(hipcc: PathBuf, rocm: PathBuf, archs: &[String], out: &Path) -> Toolchain {
    let libs = clang::rocm_device_libs(&rocm);
    let (hipcc_archs, clang_archs): (Vec<String>, Vec<String>) = archs
        .iter()
        .cloned()
        .partition(|a| libs.as_ref().is_none_or(|l| clang::rocm_has_target(l, a)));
    let clang = match (libs, clang_archs.is_empty()) {
        (Some(libs), false) => {
            let clang = clang::find_clang(&clang_archs).unwrap_or_else(|e| fail(&e));
            let libs = clang::device_libs(&clang, &libs, &clang_archs, out)
                .unwrap_or_else(|e| fail(&format!("preparing clang's device libraries: {e}")));
            Some(ClangTargets {
                clang,
                libs,
                archs: clang_archs,
            })
        }
        _ => None,
    };
    Toolchain {
        hipcc,
        rocm,
        hipcc_archs,
        clang,
    }
}

impl Toolchain {
    /// What the kernel archive depends on besides the sources (crate::cache): the compilers
    /// (by path, size and date), the ROCm root, the targets each builds, and the environment.
    fn key(&self) -> u64 {
        let mut h = DefaultHasher::new();
        cache::hash_file_identity(&self.hipcc, &mut h);
        self.rocm.hash(&mut h);
        self.hipcc_archs.hash(&mut h);
        if let Some(c) = &self.clang {
            cache::hash_file_identity(&c.clang, &mut h);
            c.archs.hash(&mut h);
        }
        for var in ENV_VARS {
            env::var_os(var).hash(&mut h);
        }
        h.finish()
    }
}

const SETUP_HINT: &str = "install it with `bash scripts/setup-hip.sh` (Debian: hipcc, \
                          libamdhip64-dev), or point HIPCC at hipcc or ROCM_PATH at a ROCm root";

/// Builds the kernels and `abi` (the host-only shim) for the HIP backend.
pub fn build(abi: &Path) {
    for var in ENV_VARS {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed={}", abi.display());
    crate::rerun_on_device_layer();
    if crate::docs_only() {
        // docs.rs: no hipcc, nothing compiled or linked; the build facts wavekit-hip reads with
        // `env!` say so (empty paths, the targets asked for).
        let (archs, source) = offload_archs();
        build_facts("", &archs, source, "", "", "");
        return;
    }

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

    let tc = toolchain(hipcc, rocm, &archs, &out);
    let kernel_lib = out.join("libwavekit_hip_kernels.a");
    cache::archive("wavekit_hip_kernels", tc.key(), &[], || {
        let objects = kernels::compile_all(&tc, &csrc, &sources, &out.join("hip"))
            .unwrap_or_else(|e| fail(&e));
        cc::Build::new()
            .cargo_metadata(false)
            .try_create_archive("wavekit_hip_kernels", &objects)
            .unwrap_or_else(|e| fail(&format!("archiving the HIP kernels failed: {e}")));
    });

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

    let mut hiprtc = false;
    for dir in [tc.rocm.join("lib"), tc.rocm.join("lib64")] {
        if dir.join("libamdhip64.so").exists() {
            println!("cargo:rustc-link-search=native={}", dir.display());
            // A ROCm outside the loader's default path (/opt/rocm) is found at run time too.
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
        }
        hiprtc |= dir.join("libhiprtc.so").exists();
    }
    println!("cargo:rustc-link-lib=dylib=amdhip64");
    // hipRTC (wavekit::hip::rtc) is inside libamdhip64 up to ROCm 5.2 and its own library after.
    if hiprtc {
        println!("cargo:rustc-link-lib=dylib=hiprtc");
    }

    let (clang, clang_archs) = tc
        .clang
        .as_ref()
        .map_or((String::new(), String::new()), |c| {
            (c.clang.display().to_string(), c.archs.join(","))
        });
    build_facts(
        &kernel_lib.display().to_string(),
        &archs,
        source,
        &tc.hipcc.display().to_string(),
        &clang,
        &clang_archs,
    );
}

/// The build's facts for wavekit-hip's `build_info` (the module docs list them).
fn build_facts(
    kernel_lib: &str,
    archs: &[String],
    source: &str,
    hipcc: &str,
    clang: &str,
    clang_archs: &str,
) {
    println!("cargo:rustc-env=WAVEKIT_HIP_KERNEL_LIB={kernel_lib}");
    println!("cargo:rustc-env=WAVEKIT_HIP_ARCHS={}", archs.join(","));
    println!("cargo:rustc-env=WAVEKIT_HIP_ARCHS_SOURCE={source}");
    println!("cargo:rustc-env=WAVEKIT_HIPCC={hipcc}");
    println!("cargo:rustc-env=WAVEKIT_HIP_CLANG={clang}");
    println!("cargo:rustc-env=WAVEKIT_HIP_CLANG_ARCHS={clang_archs}");
}

/// Compiles `sources` (a user's kernels written against csrc/wavekit.h) for every offload
/// target (hipcc, and clang for the targets ROCm predates, as [`build`] does) into the static
/// library `lib`, linked into the crate whose build script calls this, with libamdhip64.
pub fn compile(lib: &str, sources: &[PathBuf]) {
    // docs.rs (DOCS_RS): nothing to compile or link for rustdoc, and no compiler to do it.
    if crate::docs_only() {
        return;
    }
    for var in ENV_VARS {
        println!("cargo:rerun-if-env-changed={var}");
    }
    crate::rerun_on_device_layer();
    let hipcc = find_hipcc();
    let rocm = rocm_root(&hipcc);
    let (archs, _) = offload_archs();
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let tc = toolchain(hipcc, rocm.clone(), &archs, &out);
    let objects = kernels::compile_all(&tc, &crate::csrc_dir(), sources, &out.join(lib))
        .unwrap_or_else(|e| fail(&e));
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
