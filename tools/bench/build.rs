//! With the `cuda` feature: compiles csrc/bench (CUB baselines, copy/read kernels, the seed
//! ladder, variants of wavekit's kernels) with nvcc. They call into the kernels the CUDA
//! backend builds, which also links the CUDA runtime.

fn main() {
    if std::env::var_os("CARGO_FEATURE_CUDA").is_some() {
        let bench = wavekit_build::sources(&wavekit_build::csrc_dir().join("bench"), "cu");
        wavekit_build::cuda::compile("wavekit_cuda_bench", &bench);
    }
}
