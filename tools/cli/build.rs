//! `wavekit check` loads a user's kernel, compiled into a shared object, that calls the SIMT
//! executor linked into this binary: the binary exports its symbols for it.
fn main() {
    if std::env::var_os("CARGO_FEATURE_SIMT").is_some() {
        println!("cargo:rustc-link-arg-bins=-rdynamic");
    }
}
