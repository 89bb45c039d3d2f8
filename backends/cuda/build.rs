//! Compiles csrc/kernels with nvcc and links the static CUDA runtime; records where NVRTC is.

fn main() {
    let kernels = wavekit_build::sources(&wavekit_build::csrc_dir().join("kernels"), "cu");
    wavekit_build::cuda::compile("wavekit_cuda_kernels", &kernels);
    wavekit_build::cuda::link_runtime();
    // Where the run-time compiler (rtc.rs) looks for NVRTC when the loader does not find it.
    if let Some(dir) = wavekit_build::cuda::nvrtc_dir() {
        println!("cargo:rustc-env=WAVEKIT_NVRTC_DIR={}", dir.display());
    }
}
