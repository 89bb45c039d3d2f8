//! The example user kernel (examples/warp_count.cu), compiled for the SIMT executor as a user's
//! build script compiles theirs: tests/user_kernel.rs runs it. And the plain-CUDA twins of the
//! hazard corpus (tests/plain/corpus), each built as `wavekit check` builds a user's file, into
//! a shared library per width that tests/simt_plain_corpus.rs loads (the test programs export
//! the executor's symbols for them: -rdynamic).
use std::path::{Path, PathBuf};
use wavekit_kernels::plain::{self, Program};

fn main() {
    if std::env::var_os("CARGO_FEATURE_SIMT").is_some() {
        wavekit_kernels::user::executor("wavekit_example_kernels", &["../examples/warp_count.cu"]);
        plain_corpus();
    }
}

/// Builds tests/plain/corpus/NAME.cu's kernels NAME and NAME_fixed into
/// `plain_w{32,64}.so` under a folder named by a hash of everything they are built from,
/// beside the profile's build folders: the clippy and test runs with other features (CI runs
/// several) find them built and do not build them again.
fn plain_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("plain").join("corpus");
    let simt = wavekit_kernels::csrc_dir().join("simt");
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-changed={}", simt.display());
    let files = wavekit_kernels::sources(&dir, "cu");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    // OUT_DIR is <target>/<profile>/build/<package>-<hash>/out.
    let profile = out_dir
        .ancestors()
        .nth(3)
        .expect("OUT_DIR is inside the target folder");
    let out =
        profile
            .join("wavekit-plain-corpus")
            .join(inputs_hash(&[&dir, &simt, &simt.join("plain")]));
    if !out.join("done").is_file() {
        let building = out.with_extension(format!("building-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&building);
        let jobs: usize = std::env::var("NUM_JOBS")
            .ok()
            .and_then(|j| j.parse().ok())
            .unwrap_or(2)
            .max(1);
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..jobs {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(file) = files.get(i) else { break };
                        build(file, &building);
                    }
                });
            }
        });
        std::fs::write(building.join("done"), "").expect("OUT_DIR's profile folder is writable");
        // Another build may have finished first: its libraries are the same.
        if std::fs::rename(&building, &out).is_err() {
            let _ = std::fs::remove_dir_all(&building);
        }
    }
    println!("cargo:rustc-env=WAVEKIT_PLAIN_CORPUS={}", out.display());
    println!("cargo:rustc-link-arg-tests=-rdynamic");
}

/// A hash of the names and contents of the files directly in `dirs` and of the compiler's
/// arguments.
fn inputs_hash(dirs: &[&Path]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    plain::compiler_args(64).hash(&mut h);
    std::env::var("CXX").ok().hash(&mut h);
    for d in dirs {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(d)
            .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries.iter().filter(|e| e.is_file()) {
            e.hash(&mut h);
            std::fs::read(e).unwrap_or_default().hash(&mut h);
        }
    }
    format!("{:016x}", h.finish())
}

fn build(file: &Path, out: &Path) {
    let name = file
        .file_stem()
        .expect("a .cu file")
        .to_string_lossy()
        .to_string();
    let fail = |e: wavekit_core::error::WavekitError| -> ! { panic!("{}: {e}", file.display()) };
    let p = Program::read(file).unwrap_or_else(|e| fail(e));
    let kernels = [
        p.resolve(&name).unwrap_or_else(|e| fail(e)),
        p.resolve(&format!("{name}_fixed"))
            .unwrap_or_else(|e| fail(e)),
    ];
    let d = out.join(&name);
    std::fs::create_dir_all(&d).expect("OUT_DIR is writable");
    let wrapper = p.write(&d, &kernels).unwrap_or_else(|e| fail(e));
    for width in [32, 64] {
        plain::shared_object(&p, &wrapper, width, &d).unwrap_or_else(|e| fail(e));
    }
}
