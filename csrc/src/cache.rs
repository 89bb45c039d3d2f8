//! A content-addressed cache of the compiled kernel archives, shared by every variant of a build
//! script. Cargo runs a package's build script again, into a fresh `OUT_DIR`, for each variant
//! of its fingerprint: `cargo clippy` (a workspace wrapper), `cargo test`, another feature set
//! of a dependency. Each run used to compile every kernel again (nvcc, hipcc and the host
//! compiler's four executor flavours: most of CI's build time on two cores). The archive depends
//! only on the device sources, the compiler and its arguments, so it is kept under the target
//! directory, keyed by a hash of exactly those, and copied into `OUT_DIR` on a hit.

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Archives kept per library name: the newest few, so a checkout that moves between commits
/// reuses its recent builds without the folder growing without end.
const KEEP: usize = 4;

/// Compiles `build` into `lib{lib}.a` in `OUT_DIR` and tells cargo to link it, as
/// `cc::Build::compile` does, unless an archive from the same sources, compiler and arguments
/// is in the cache. Every caller compiles C++ (kernels or the executor), so the C++ standard
/// library is linked as cc would.
pub fn compile(build: &mut cc::Build, lib: &str) {
    build.cargo_metadata(false);
    for var in ["CC", "CXX", "CFLAGS", "CXXFLAGS", "CXXSTDLIB", "AR"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let tool = build.get_compiler();
    let mut h = DefaultHasher::new();
    // The include paths name this package's folder: hashed relative to it, so that the same
    // sources compiled from another copy of the package (the published crate's, unpacked under
    // target/package/ by `cargo package`) find the archive this checkout built.
    let csrc = crate::csrc_dir();
    let csrc = csrc.to_string_lossy();
    for arg in tool.args() {
        arg.to_string_lossy().replace(&*csrc, "<csrc>").hash(&mut h);
    }
    for kv in tool.get_envs() {
        kv.hash(&mut h);
    }
    hash_file_identity(tool.path(), &mut h);
    archive(lib, h.finish(), &[], || build.compile(lib));
    println!("cargo:rustc-link-lib=stdc++");
}

/// Makes `OUT_DIR/lib{lib}.a` with `make` unless the cache has it for `key` (a hash of how it is
/// compiled), the device sources under csrc/ and `extra` files; then tells cargo where it is.
pub fn archive(lib: &str, key: u64, extra: &[&Path], make: impl FnOnce()) {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let name = format!("lib{lib}.a");
    let dest = out.join(&name);
    let key = full_key(lib, key, extra);
    let dir = cache_dir(&out);
    let cached = dir.as_ref().map(|d| d.join(format!("{lib}-{key:016x}.a")));
    match &cached {
        Some(c) if c.is_file() && copy(c, &dest).is_ok() => {
            // A hit keeps the entry among the newest.
            let _ = std::fs::File::options()
                .append(true)
                .open(c)
                .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        }
        _ => {
            make();
            if let (Some(dir), Some(c)) = (&dir, &cached) {
                // Another build may be storing the same key: write aside, rename into place.
                let tmp = dir.join(format!(".{lib}-{key:016x}.{}", std::process::id()));
                if std::fs::create_dir_all(dir).is_ok() && std::fs::copy(&dest, &tmp).is_ok() {
                    let _ = std::fs::rename(&tmp, c);
                }
                let _ = std::fs::remove_file(&tmp);
                evict(dir, lib);
            }
        }
    }
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static={lib}");
}

/// `<target dir>/wavekit-kernel-cache`, from `OUT_DIR` = `<target>[/<triple>]/<profile>/build/
/// <package>-<hash>/out` (shared by debug and release builds); `None` when the layout is
/// another (the archive is then simply built).
fn cache_dir(out: &Path) -> Option<PathBuf> {
    if env::var_os("WAVEKIT_NO_KERNEL_CACHE").is_some() {
        return None;
    }
    let build = out.parent()?.parent()?;
    if build.file_name()? != "build" {
        return None;
    }
    let target = build.parent()?.parent()?;
    Some(target.join("wavekit-kernel-cache"))
}

/// The folders and files of this package that hold device code: what an archive is built from.
/// The package's own Rust sources are [`SELF`]; its manifest is not hashed (cargo rewrites it in
/// a published copy).
const DEVICE_SOURCES: &[&str] = &["wavekit.h", "wavekit", "kernels", "simt", "bench"];

/// What the archive depends on besides how it is compiled: every device source of this package
/// (by path relative to it, and content), the package's own code (how it compiles), the
/// target, and `extra` files.
fn full_key(lib: &str, key: u64, extra: &[&Path]) -> u64 {
    let mut h = DefaultHasher::new();
    lib.hash(&mut h);
    key.hash(&mut h);
    env::var("TARGET").ok().hash(&mut h);
    for src in SELF {
        src.hash(&mut h);
    }
    let csrc = crate::csrc_dir();
    let mut files = Vec::new();
    for top in DEVICE_SOURCES {
        let p = csrc.join(top);
        if p.is_dir() {
            walk(&p, &mut files);
        } else {
            files.push(p);
        }
    }
    files.sort();
    for f in files
        .iter()
        .map(PathBuf::as_path)
        .chain(extra.iter().copied())
    {
        // Relative: a copy of this package elsewhere keys the same.
        f.strip_prefix(&csrc).unwrap_or(f).hash(&mut h);
        std::fs::read(f).ok().hash(&mut h);
    }
    h.finish()
}

/// The build crate's sources: a change to how anything is compiled is a new key.
const SELF: &[&str] = &[
    include_str!("lib.rs"),
    include_str!("cache.rs"),
    include_str!("cuda.rs"),
    include_str!("hip.rs"),
    include_str!("hip/kernels.rs"),
    include_str!("hip/clang.rs"),
    include_str!("hip/bundle.rs"),
    include_str!("simt.rs"),
];

/// A compiler (or any tool) by path, size and modification time: a reinstalled toolchain at
/// the same path is a new key.
pub fn hash_file_identity(path: &Path, h: &mut impl Hasher) {
    path.hash(h);
    if let Ok(m) = std::fs::metadata(path) {
        m.len().hash(h);
        m.modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .hash(h);
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// A hard link where the file system allows one (no copy of tens of megabytes), else a copy.
fn copy(from: &Path, to: &Path) -> std::io::Result<()> {
    let _ = std::fs::remove_file(to);
    std::fs::hard_link(from, to).or_else(|_| std::fs::copy(from, to).map(|_| ()))
}

/// Removes all but the `KEEP` most recently used archives of `lib`.
fn evict(dir: &Path, lib: &str) {
    let prefix = format!("{lib}-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut mine: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with(&prefix) && n.ends_with(".a") && n[prefix.len()..n.len() - 2].len() == 16
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    mine.sort();
    let excess = mine.len().saturating_sub(KEEP);
    for (_, p) in mine.into_iter().take(excess) {
        let _ = std::fs::remove_file(p);
    }
}
