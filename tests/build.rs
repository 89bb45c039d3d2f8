//! The example user kernel (examples/warp_count.cu), compiled for the SIMT executor as a user's
//! build script compiles theirs: tests/user_kernel.rs runs it. And the plain-CUDA twins of the
//! hazard corpus (tests/plain/corpus), each built as `wavekit check` builds a user's file, into
//! a shared library per width that tests/simt_plain_corpus.rs loads (the test programs export
//! the executor's symbols for them: -rdynamic).
use std::path::{Path, PathBuf};
use wavekit_build::plain::{self, Program};

fn main() {
    if std::env::var_os("CARGO_FEATURE_SIMT").is_some() {
        wavekit_build::user::executor("wavekit_example_kernels", &["../examples/warp_count.cu"]);
        plain_corpus();
    }
}

/// Builds tests/plain/corpus/NAME.cu's kernels NAME and NAME_fixed into
/// `$OUT_DIR/plain_corpus/NAME/plain_w{32,64}.so`, a few files at a time.
fn plain_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("plain").join("corpus");
    println!("cargo:rerun-if-changed={}", dir.display());
    println!(
        "cargo:rerun-if-changed={}",
        wavekit_build::csrc_dir().join("simt").display()
    );
    let files = wavekit_build::sources(&dir, "cu");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("plain_corpus");
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
                    build(file, &out);
                }
            });
        }
    });
    println!("cargo:rustc-env=WAVEKIT_PLAIN_CORPUS={}", out.display());
    println!("cargo:rustc-link-arg-tests=-rdynamic");
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
