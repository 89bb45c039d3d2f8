//! The example user kernel (examples/warp_count.cu), compiled for the SIMT executor as a user's
//! build script compiles theirs: tests/user_kernel.rs runs it.
fn main() {
    if std::env::var_os("CARGO_FEATURE_SIMT").is_some() {
        wavekit_build::user::executor("wavekit_example_kernels", &["../examples/warp_count.cu"]);
    }
}
