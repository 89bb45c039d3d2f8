//! Generates, from wavekit-kernels' device sources (its own folder, `csrc_dir()`): the Rust
//! mirror of the launcher table (src/ffi.rs includes it) from csrc/wavekit/launchers.def, the
//! one list both sides are written from; and the device API's headers as text (src/device.rs
//! includes the list): `wavekit.h` and every file of `wavekit/`. Neither needs a compiler, so
//! both are made on docs.rs too.

use std::fmt::Write;
use std::path::{Path, PathBuf};

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let csrc = wavekit_kernels::csrc_dir();
    wavekit_kernels::launchers::generate(&csrc, &out);
    device_headers(&csrc, &out.join("device_headers.rs"));
}

/// `&[Header { name, text: include_str!(path) }, ...]`: `wavekit.h` first, then `wavekit/`'s
/// files by name.
fn device_headers(csrc: &Path, dest: &Path) {
    let layer = csrc.join("wavekit");
    println!("cargo:rerun-if-changed={}", layer.display());
    let mut names: Vec<String> = std::fs::read_dir(&layer)
        .unwrap_or_else(|e| panic!("{}: {e}", layer.display()))
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| format!("wavekit/{}", e.file_name().to_string_lossy()))
        .collect();
    names.sort();
    names.insert(0, "wavekit.h".to_string());
    let mut text = String::from("&[\n");
    for name in &names {
        let _ = writeln!(
            text,
            "    Header {{ name: {name:?}, text: include_str!({:?}) }},",
            csrc.join(name)
        );
    }
    text.push(']');
    std::fs::write(dest, text).expect("OUT_DIR is writable");
}
