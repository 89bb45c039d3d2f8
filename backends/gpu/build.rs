//! Generates the Rust mirror of the launcher table (src/ffi.rs includes it) from
//! csrc/wavekit/launchers.def, the one list both sides are written from.

fn main() {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    wavekit_build::launchers::generate(&wavekit_build::csrc_dir(), &out);
}
