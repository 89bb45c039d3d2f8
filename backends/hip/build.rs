//! Compiles csrc/kernels with hipcc for every offload target, and abi.cpp (the values of HIP's
//! enums and struct layouts, read from the installed headers) with the host compiler. On docs.rs
//! (`DOCS_RS`) nothing is compiled or linked (`wavekit_kernels::docs_only`).

fn main() {
    let abi = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("abi.cpp");
    wavekit_kernels::hip::build(&abi);
}
