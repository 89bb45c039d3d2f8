//! clang for the offload targets the installed ROCm predates: Debian's ROCm 5.2 (hipcc on
//! clang 15) has no gfx942 (MI300), while Debian's clang 19 does. clang compiles the same
//! kernels, device side only, against the installed HIP headers and ROCm's own device
//! libraries; csrc/src/hip.rs puts the code objects into the bundle hipcc made.
//!
//! Device libraries: the kernels call ockl's work-item functions (`__ockl_get_local_id` and
//! friends behind threadIdx, blockIdx, blockDim, gridDim), and clang links ROCm's ockl/ocml
//! bitcode for every target, plus `oclc_isa_version_<isa>.bc`, which only names the target's
//! ISA version (`__oclc_ISA_version`, e.g. 9402 for gfx942) and which ROCm 5.2 lacks for the
//! newer targets. The build makes a device-library folder of links to ROCm's bitcode and
//! writes the missing ISA files there, so the code is linked with the same ockl as the other
//! targets. Code object version 4, as hipcc of ROCm 5.2 builds (ockl's ABI 400 paths): every
//! entry of one bundle shares one ABI, and runtimes of ROCm 5 and 6 load it.
//!
//! Environment: `WAVEKIT_HIP_CLANG` (the clang++ to use; default `clang++-19` on PATH, then
//! `/usr/lib/llvm-19/bin/clang++`), `HIP_DEVICE_LIB_PATH` (ROCm's bitcode folder, as clang
//! reads it).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const CLANG_HINT: &str = "install it with `bash scripts/setup-hip.sh` (Debian: clang-19, \
                          lld-19), or point WAVEKIT_HIP_CLANG at a clang++ whose AMDGPU \
                          backend knows the target";

/// The clang++ that builds the targets hipcc cannot: `WAVEKIT_HIP_CLANG`, else `clang++-19`
/// on PATH, else Debian's `/usr/lib/llvm-19/bin/clang++`.
pub fn find_clang(targets: &[String]) -> Result<PathBuf, String> {
    let why = format!(
        "the installed ROCm has no device library for {} (hipcc cannot build it), so clang \
         builds it",
        targets.join(", ")
    );
    if let Some(p) = env::var_os("WAVEKIT_HIP_CLANG") {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "WAVEKIT_HIP_CLANG={} is not a file; {why}: {CLANG_HINT}",
                p.display()
            ))
        };
    }
    env::var_os("PATH")
        .and_then(|paths| {
            env::split_paths(&paths)
                .map(|d| d.join("clang++-19"))
                .find(|p| p.is_file())
        })
        .or_else(|| Some(PathBuf::from("/usr/lib/llvm-19/bin/clang++")).filter(|p| p.is_file()))
        .ok_or_else(|| {
            format!("clang++-19 was not found (WAVEKIT_HIP_CLANG, PATH); {why}: {CLANG_HINT}")
        })
}

/// ROCm's device-library folder (the one holding `ockl.bc`): `HIP_DEVICE_LIB_PATH`, else
/// `<rocm>/amdgcn/bitcode` (AMD's layout), else `<rocm>/lib/<multiarch>/amdgcn/bitcode`
/// (Debian's).
pub fn rocm_device_libs(rocm: &Path) -> Option<PathBuf> {
    if let Some(p) = env::var_os("HIP_DEVICE_LIB_PATH") {
        return Some(PathBuf::from(p)).filter(|p| p.join("ockl.bc").is_file());
    }
    let mut candidates = vec![rocm.join("amdgcn/bitcode"), rocm.join("lib/amdgcn/bitcode")];
    if let Ok(dirs) = std::fs::read_dir(rocm.join("lib")) {
        let mut multiarch: Vec<PathBuf> = dirs
            .filter_map(|d| d.ok().map(|d| d.path().join("amdgcn/bitcode")))
            .collect();
        multiarch.sort();
        candidates.extend(multiarch);
    }
    candidates.into_iter().find(|d| d.join("ockl.bc").is_file())
}

/// The ISA part of a target (`gfx942:xnack-` -> `942`).
fn isa(target: &str) -> &str {
    let processor = target.split(':').next().unwrap_or(target);
    processor.strip_prefix("gfx").unwrap_or(processor)
}

/// Whether ROCm's device libraries `libs` cover `target`, i.e. whether hipcc can build it.
pub fn rocm_has_target(libs: &Path, target: &str) -> bool {
    libs.join(format!("oclc_isa_version_{}.bc", isa(target)))
        .is_file()
}

/// `__oclc_ISA_version` of a target, as ROCm's device libraries number it: major * 1000 +
/// minor * 100 + stepping, the last two being the hex digits of the name (gfx90a -> 9010,
/// gfx942 -> 9402, gfx1030 -> 10300). `None` for a name that is no AMD GPU target.
pub fn isa_version(target: &str) -> Option<u32> {
    let id = isa(target);
    if id.len() < 3 || !id.is_ascii() {
        return None;
    }
    let (major, rest) = id.split_at(id.len() - 2);
    let major: u32 = major.parse().ok()?;
    let minor = rest[..1].parse::<u32>().ok()?;
    let stepping = u32::from_str_radix(&rest[1..], 16).ok()?;
    Some(major * 1000 + minor * 100 + stepping)
}

/// A device-library folder under `out` for clang: links to every bitcode file of ROCm's
/// `libs`, plus `oclc_isa_version_<isa>.bc` for each of `targets` that ROCm lacks, compiled
/// from one line of LLVM IR with `clang`.
pub fn device_libs(
    clang: &Path,
    libs: &Path,
    targets: &[String],
    out: &Path,
) -> Result<PathBuf, String> {
    let dir = out.join("hip-device-libs");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let rocm_files =
        std::fs::read_dir(libs).map_err(|e| format!("cannot read {}: {e}", libs.display()))?;
    for f in rocm_files.filter_map(|f| f.ok().map(|f| f.path())) {
        if f.extension().is_some_and(|e| e == "bc") {
            let link = dir.join(f.file_name().expect("a file name"));
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&f, &link)
                .map_err(|e| format!("cannot link {} to {}: {e}", link.display(), f.display()))?;
        }
    }
    for target in targets {
        let name = format!("oclc_isa_version_{}.bc", isa(target));
        if libs.join(&name).is_file() {
            continue;
        }
        let version = isa_version(target).ok_or_else(|| {
            format!("`{target}` has no ISA version (expected gfx<major><minor><stepping>)")
        })?;
        // The definition ROCm's own oclc_isa_version_*.bc files hold.
        let ir = dir.join(format!("oclc_isa_version_{}.ll", isa(target)));
        std::fs::write(
            &ir,
            format!(
                "target triple = \"amdgcn-amd-amdhsa\"\n@__oclc_ISA_version = linkonce_odr \
                 protected local_unnamed_addr addrspace(4) constant i32 {version}, align 4\n"
            ),
        )
        .map_err(|e| format!("cannot write {}: {e}", ir.display()))?;
        let mut cmd = Command::new(clang);
        cmd.args([
            "--target=amdgcn-amd-amdhsa",
            "-nogpulib",
            "-c",
            "-emit-llvm",
        ])
        .arg(&ir)
        .arg("-o")
        .arg(dir.join(&name));
        run(&mut cmd)?;
    }
    Ok(dir)
}

/// Runs `cmd`; its stderr on success (warnings), or an error naming the command.
pub fn run(cmd: &mut Command) -> Result<String, String> {
    let shown = format!("{cmd:?}");
    let output = cmd
        .output()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if output.status.success() {
        Ok(stderr)
    } else {
        Err(format!("failed ({}):\n{shown}\n{stderr}", output.status))
    }
}

/// clang compiling `src` for `target`, device side only, into the code object `co`, with the
/// flags hipcc gets (csrc/src/hip.rs).
pub fn device_command(
    clang: &Path,
    rocm: &Path,
    libs: &Path,
    target: &str,
    include: &Path,
    src: &Path,
    co: &Path,
) -> Command {
    let mut cmd = Command::new(clang);
    cmd.args([
        "-c",
        "-x",
        "hip",
        "--cuda-device-only",
        "--no-gpu-bundle-output",
    ]);
    cmd.arg(format!("--offload-arch={target}"));
    cmd.arg(format!("--rocm-path={}", rocm.display()));
    cmd.arg(format!("--rocm-device-lib-path={}", libs.display()));
    cmd.arg("-mcode-object-version=4");
    cmd.args(["-std=c++17", "-O3", "-fPIC", "-Wall", "-Wextra"]);
    // docs/SEMANTICS.md: no fused multiply-add anywhere; subnormals kept as the CPU keeps them.
    cmd.args(["-ffp-contract=off", "-fno-gpu-flush-denormals-to-zero"]);
    // Both clangs turn __launch_bounds__'s minimum blocks into an amdgpu-waves-per-eu request;
    // clang 19 also warns for each kernel its shared memory or registers keep below it (dozens
    // of lines a build), where clang 15 says nothing about the same kernels on gfx90a/gfx940. The
    // minimums are tuned for NVIDIA's SMs: the warning is about occupancy, not correctness.
    cmd.arg("-Wno-pass-failed");
    cmd.arg("-D__HIP_PLATFORM_AMD__=1");
    cmd.arg("-I").arg(include);
    cmd.arg(src).arg("-o").arg(co);
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isa_versions_match_rocms_numbering() {
        // The values of ROCm 5.2's oclc_isa_version_{90a,90c,940,1030,1036}.bc.
        assert_eq!(isa_version("gfx90a"), Some(9010));
        assert_eq!(isa_version("gfx90c"), Some(9012));
        assert_eq!(isa_version("gfx940"), Some(9400));
        assert_eq!(isa_version("gfx1030"), Some(10300));
        assert_eq!(isa_version("gfx1036"), Some(10306));
        assert_eq!(isa_version("gfx942:sramecc+:xnack-"), Some(9402));
        assert_eq!(isa_version("gfx1100"), Some(11000));
        assert_eq!(isa_version("gfx9"), None);
        assert_eq!(isa_version("gfxz42"), None);
    }

    #[test]
    fn a_target_is_hipccs_when_rocm_has_its_isa_library() {
        let dir = env::temp_dir().join(format!("wavekit-kernels-libs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("oclc_isa_version_90a.bc"), b"").unwrap();
        assert!(rocm_has_target(&dir, "gfx90a"));
        assert!(rocm_has_target(&dir, "gfx90a:xnack-"));
        assert!(!rocm_has_target(&dir, "gfx942"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
