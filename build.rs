//! Compiles csrc/ for the GPU features that are on; the CPU backend needs nothing here.

#[path = "build/cuda.rs"]
mod cuda;
#[path = "build/hip.rs"]
mod hip;
#[path = "build/simt.rs"]
mod simt;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=csrc");
    simt::build();
    if std::env::var_os("CARGO_FEATURE_CUDA").is_some() {
        cuda::build();
    }
    if std::env::var_os("CARGO_FEATURE_HIP").is_some() {
        hip::build();
    }
}
