//! Compiles the executor core and the csrc kernels it runs with the host C++ compiler, and
//! lists the executor's headers (csrc/simt/**.h) for `user::SourceBuild`, which builds a
//! user's source string against copies of them (no checkout needed at run time). On docs.rs
//! (`DOCS_RS`) the C++ is not compiled (`wavekit_kernels::docs_only`); the headers are listed.

use std::fmt::Write;

fn main() {
    wavekit_kernels::simt::build();
    let csrc = wavekit_kernels::csrc_dir();
    let mut headers = Vec::new();
    collect(&csrc.join("simt"), &mut headers);
    headers.sort();
    let mut out = String::from("&[\n");
    for h in &headers {
        let name = h.strip_prefix(&csrc).expect("under csrc/");
        let _ = writeln!(
            out,
            "    ({:?}, include_str!({:?})),",
            name.display().to_string(),
            h
        );
    }
    out.push(']');
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("executor_headers.rs");
    std::fs::write(&dest, out).expect("OUT_DIR is writable");
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "h") {
            out.push(p);
        }
    }
}
