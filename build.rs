//! Compiles csrc/ for the GPU features that are on; the CPU backend needs nothing here.

#[path = "build/cuda.rs"]
mod cuda;
#[path = "build/hip.rs"]
mod hip;
#[path = "build/launchers.rs"]
mod launchers;
#[path = "build/simt.rs"]
mod simt;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=csrc");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    launchers::generate(std::path::Path::new("csrc"), &out);
    simt::build();
    if std::env::var_os("CARGO_FEATURE_CUDA").is_some() {
        cuda::build();
    }
    if std::env::var_os("CARGO_FEATURE_HIP").is_some() {
        hip::build();
    }
}
