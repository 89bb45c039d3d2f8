//! Compiles the executor core and the csrc kernels it runs with the host C++ compiler.

fn main() {
    wavekit_build::simt::build();
}
