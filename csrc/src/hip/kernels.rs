//! One fat object per kernel source: hipcc's device code objects (one bundle), clang's added
//! to that bundle, and hipcc's host compile around it.

use super::Toolchain;
use super::bundle::{self, Entry};
use super::clang::{self, run};
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Compiles every source, NUM_JOBS at a time: each worker takes the next source when it
/// finishes one, largest first (device_scan.cu took 82 s of hipcc for two targets, the small
/// files a few seconds, so fixed batches waited on their slowest). The objects, and each
/// compiler's warnings as cargo warnings, come in the sources' order.
pub fn compile_all(
    tc: &Toolchain,
    include: &Path,
    sources: &[PathBuf],
    dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let jobs = env::var("NUM_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or(1usize)
        .clamp(1, sources.len().max(1));
    // Largest first, so that no large file starts last and leaves the other workers idle.
    let mut order: Vec<usize> = (0..sources.len()).collect();
    // Cached: one metadata call a file, not one a comparison.
    order.sort_by_cached_key(|&i| {
        std::cmp::Reverse(std::fs::metadata(&sources[i]).map_or(0, |m| m.len()))
    });
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let mut results: Vec<(usize, Compiled)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    // After a failure the others finish the file they have and stop.
                    while !failed.load(Ordering::Relaxed) {
                        let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            break;
                        };
                        let r = compile_one(tc, include, &sources[i], dir);
                        if r.is_err() {
                            failed.store(true, Ordering::Relaxed);
                        }
                        done.push((i, r));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("compile thread"))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    let mut objects = Vec::new();
    for (_, result) in results {
        let (obj, warnings) = result?;
        for line in warnings {
            println!("cargo:warning={line}");
        }
        objects.push(obj);
    }
    Ok(objects)
}

/// One source's object and its compilers' warnings, or why it failed.
type Compiled = Result<(PathBuf, Vec<String>), String>;

/// The flags both the device and the host compiles of a source get.
fn common_flags(cmd: &mut Command, include: &Path) {
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
    // docs/SEMANTICS.md: no fused multiply-add anywhere.
    cmd.arg("-ffp-contract=off");
    // The HIP headers define this themselves, but csrc/wavekit/width.h picks the vendor before
    // it includes them.
    cmd.arg("-D__HIP_PLATFORM_AMD__=1");
    cmd.arg("-I").arg(include);
}

/// hipcc, on the AMD platform: it picks the NVIDIA one when it sees nvcc but no clang++ (the
/// `cuda,hip` build).
fn hipcc(tc: &Toolchain) -> Command {
    let mut cmd = Command::new(&tc.hipcc);
    cmd.env("HIP_PLATFORM", "amd");
    cmd
}

/// Compiles `src` into `<dir>/<stem>.o`; the warnings of each step, each line prefixed with
/// the compiler that printed it.
fn compile_one(
    tc: &Toolchain,
    include: &Path,
    src: &Path,
    dir: &Path,
) -> Result<(PathBuf, Vec<String>), String> {
    let stem = src
        .file_stem()
        .expect("source name")
        .to_string_lossy()
        .into_owned();
    let mut warnings = Vec::new();
    let mut note = |who: &str, stderr: String| {
        warnings.extend(
            stderr
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| format!("{who}: {l}")),
        );
    };
    let what = |step: &str| format!("{step} of {}", src.display());

    // hipcc's targets: one bundle, exactly what its one-step compile would embed.
    let hipcc_bundle = dir.join(format!("{stem}.hipcc.hipfb"));
    let mut entries = if tc.hipcc_archs.is_empty() {
        vec![Entry {
            id: bundle::HOST_ID.into(),
            contents: Vec::new(),
        }]
    } else {
        let mut cmd = hipcc(tc);
        common_flags(&mut cmd, include);
        cmd.args(["--cuda-device-only", "--gpu-bundle-output"]);
        // Subnormals kept as the CPU keeps them (docs/SEMANTICS.md); a device-only flag.
        cmd.arg("-fno-gpu-flush-denormals-to-zero");
        for arch in &tc.hipcc_archs {
            cmd.arg(format!("--offload-arch={arch}"));
        }
        cmd.arg(src).arg("-o").arg(&hipcc_bundle);
        note(
            "hipcc",
            run(&mut cmd).map_err(|e| format!("hipcc, {}: {e}", what("device compile")))?,
        );
        let bytes = read(&hipcc_bundle)?;
        let entries =
            bundle::read(&bytes).map_err(|e| format!("{}: {e}", hipcc_bundle.display()))?;
        // The layout the bundle is rewritten in below is the bundler's own.
        if bundle::write(&entries) != bytes {
            return Err(format!(
                "{}: hipcc's offload bundle is not laid out as csrc/src/hip/bundle.rs \
                 writes bundles; adding clang's code objects to it would not be faithful",
                hipcc_bundle.display()
            ));
        }
        entries
    };

    // clang's targets, each one code object added to the bundle.
    let gpubinary = match &tc.clang {
        Some(c) => {
            for arch in &c.archs {
                let co = dir.join(format!("{stem}-{}.co", arch.replace(':', "_")));
                let mut cmd =
                    clang::device_command(&c.clang, &tc.rocm, &c.libs, arch, include, src, &co);
                note(
                    "clang",
                    run(&mut cmd).map_err(|e| {
                        format!("clang, {} for {arch}: {e}", what("device compile"))
                    })?,
                );
                entries.push(Entry {
                    id: bundle::device_id(arch),
                    contents: read(&co)?,
                });
            }
            let path = dir.join(format!("{stem}.hipfb"));
            std::fs::write(&path, bundle::write(&entries))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            path
        }
        None => hipcc_bundle,
    };

    // The host side around the bundle, as hipcc's one-step compile does it.
    let obj = dir.join(format!("{stem}.o"));
    let mut cmd = hipcc(tc);
    common_flags(&mut cmd, include);
    cmd.arg("--cuda-host-only");
    cmd.args(["-Xclang", "-fcuda-include-gpubinary", "-Xclang"])
        .arg(&gpubinary);
    for arch in &tc.hipcc_archs {
        cmd.arg(format!("--offload-arch={arch}"));
    }
    if tc.hipcc_archs.is_empty() {
        // With no target hipcc asks rocm_agent_enumerator for the local GPU; the host side
        // needs none.
        cmd.env("HCC_AMDGPU_TARGET", "");
    }
    cmd.arg(src).arg("-o").arg(&obj);
    note(
        "hipcc",
        run(&mut cmd).map_err(|e| format!("hipcc, {}: {e}", what("host compile")))?,
    );
    Ok((obj, warnings))
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}
