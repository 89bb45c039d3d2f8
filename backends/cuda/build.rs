//! Compiles csrc/kernels with nvcc and links the static CUDA runtime.

fn main() {
    let kernels = wavekit_build::sources(&wavekit_build::csrc_dir().join("kernels"), "cu");
    wavekit_build::cuda::compile("wavekit_cuda_kernels", &kernels);
    wavekit_build::cuda::link_runtime();
}
