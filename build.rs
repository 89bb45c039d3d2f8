//! The facade's build script: only for this package's own examples. examples/nvrtc_warp.rs
//! checks a kernel source on the SIMT executor (`check_source`), which loads a library that
//! calls back into the executor linked into the program, so the example exports its symbols.
fn main() {
    println!("cargo:rustc-link-arg-examples=-rdynamic");
    println!("cargo:rerun-if-changed=build.rs");
}
