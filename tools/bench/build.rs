//! With the `cuda` feature: compiles csrc/bench (CUB baselines, copy/read kernels, the seed
//! ladder, variants of wavekit's kernels) with nvcc. They call into the kernels the CUDA
//! backend builds, which also links the CUDA runtime.

fn main() {
    if std::env::var_os("CARGO_FEATURE_CUDA").is_some() {
        let bench = wavekit_kernels::sources(&wavekit_kernels::csrc_dir().join("bench"), "cu");
        wavekit_kernels::cuda::compile("wavekit_cuda_bench", &bench);
    }
}
