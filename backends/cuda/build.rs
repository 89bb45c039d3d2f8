//! Compiles csrc/kernels (wavekit-kernels' own files) with nvcc and links the static CUDA
//! runtime; records where NVRTC is. On docs.rs (`DOCS_RS`) each call does nothing
//! (`wavekit_kernels::docs_only`): no nvcc there, and rustdoc links nothing.

fn main() {
    let kernels = wavekit_kernels::sources(&wavekit_kernels::csrc_dir().join("kernels"), "cu");
    wavekit_kernels::cuda::compile("wavekit_cuda_kernels", &kernels);
    wavekit_kernels::cuda::link_runtime();
    // Where the run-time compiler (rtc.rs) looks for NVRTC when the loader does not find it.
    if let Some(dir) = wavekit_kernels::cuda::nvrtc_dir() {
        println!("cargo:rustc-env=WAVEKIT_NVRTC_DIR={}", dir.display());
    }
}
