//! The reading of plain sources without a compiler: what is found, what is refused and where.

use super::Program;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use wavekit_core::error::WavekitError;

/// `files` written to a fresh folder; the path of the first.
fn write(files: &[(&str, &str)]) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "wavekit-plain-scan-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("written");
    }
    dir.join(files[0].0)
}

/// Reads `src` as a file's text; the file is gone after (a Program holds what it read).
fn read(src: &str) -> Result<Program, WavekitError> {
    let path = write(&[("k.cu", src)]);
    let p = Program::read(&path);
    let _ = std::fs::remove_dir_all(path.parent().expect("its folder"));
    p
}

/// `src` read, and its kernel `k` written out under a fresh folder: the wrapper's folder.
fn written(src: &str, kernel: &str) -> Result<PathBuf, WavekitError> {
    let p = read(src)?;
    let e = p.resolve(kernel)?;
    let dir = write(&[("unused", "")])
        .parent()
        .expect("its folder")
        .join("out");
    p.write(&dir, &[e])?;
    Ok(dir)
}

/// The line and message of the error checking kernel `k` of `src` gives.
fn refusal(src: &str) -> (u32, String) {
    match written(src, "k") {
        Err(WavekitError::UserSource { line, message, .. }) => (line, message),
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn each_construct_the_executor_cannot_model_is_refused_at_its_line() {
    let cases = [
        (
            "__device__ int f() {\n  int x;\n  asm(\"mov %0, 1;\" : \"=r\"(x));\n  return x;\n}\n\
             __global__ void k(int* o) { o[0] = f(); }\n",
            3,
            "inline assembly",
        ),
        (
            "texture<float, 1> tex;\n__global__ void k(float* o) { o[0] = tex1Dfetch(tex, 0); }\n",
            2,
            "texture",
        ),
        (
            "#include <mma.h>\n__global__ void k() {\n  nvcuda::wmma::fragment<int> a;\n}\n",
            3,
            "tensor core",
        ),
        (
            "using namespace nvcuda;\n__global__ void k() {\n  wmma::fragment<int> a;\n}\n",
            3,
            "tensor core",
        ),
        (
            "__global__ void child() {}\n__global__ void k() {\n  child<<<1, 1>>>();\n}\n",
            3,
            "dynamic parallelism",
        ),
        (
            "__global__ void k() {\n  cudaDeviceSynchronize();\n}\n",
            2,
            "dynamic parallelism",
        ),
        (
            "#include <cooperative_groups.h>\n__global__ void k() {\n  auto g = cooperative_groups::this_grid();\n  g.sync();\n}\n",
            4,
            "grid.sync()",
        ),
        (
            "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n\
             __device__ void wait(cg::grid_group& grid) {\n  cg::sync(grid);\n}\n\
             __global__ void k() {\n  wait_all();\n}\n__device__ void wait_all() { cg::this_grid().sync(); }\n",
            9,
            "grid.sync()",
        ),
        (
            "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n\
             __device__ void wait(cg::grid_group& grid) {\n  cg::sync(grid);\n}\n\
             __global__ void k() {\n  wait(cg::this_grid());\n}\n",
            4,
            "grid.sync()",
        ),
        (
            "#define LANE(x) asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(x))\n\
             __device__ unsigned lane() { unsigned x; LANE(x); return x; }\n\
             __global__ void k(unsigned* o) { o[0] = lane(); }\n",
            1,
            "inline assembly",
        ),
        (
            "#include <cub/cub.cuh>\n__global__ void k(int* o) {\n  typedef cub::WarpReduce<int> R;\n}\n",
            3,
            "CUB",
        ),
        (
            "#include <cublas_v2.h>\n__device__ void g(cublasHandle_t h) {}\n\
             __global__ void k() {\n  g(0);\n}\n",
            2,
            "cuBLAS",
        ),
    ];
    for (src, line, what) in cases {
        let (l, m) = refusal(src);
        assert_eq!(l, line, "{src}: {m}");
        assert!(m.contains(what), "{src}: {m}");
    }
}

#[test]
fn what_a_kernel_does_not_reach_is_emptied_not_refused() {
    let src = "#include <cooperative_groups.h>\n#include <cublas_v2.h>\n\
               namespace cg = cooperative_groups;\n\
               __device__ int lane() { int x; asm(\"mov %0, 1;\" : \"=r\"(x)); return x; }\n\
               __global__ void other(int* o) { o[0] = lane(); cg::this_grid().sync(); }\n\
               __device__ int twice(int v) { return 2 * v; }\n\
               __global__ void k(int* o) { o[0] = twice(cg::this_grid().thread_rank()); }\n";
    let dir = written(src, "k").expect("k reaches nothing refused");
    let copy = std::fs::read_to_string(dir.join("src").join("k.cu")).expect("the copy");
    assert!(!copy.contains("asm") && !copy.contains(".sync()"), "{copy}");
    assert!(copy.contains("#include <wk_vendor.h>"), "{copy}");
    assert!(copy.contains("return 2 * v;"), "{copy}");
    assert_eq!(copy.lines().count(), src.lines().count() + 1, "{copy}");
    let _ = std::fs::remove_dir_all(dir.parent().expect("its folder"));
}

#[test]
fn host_code_may_do_what_device_code_may_not() {
    // Launches, runtime calls and a grid-stride loop in host functions are emptied, not refused.
    let p = read(
        "__global__ void k(int* x) { x[threadIdx.x] = 1; }\n\
         int main() {\n  int* d;\n  cudaMalloc(&d, 4);\n  k<<<1, 32>>>(d);\n  \
         cudaDeviceSynchronize();\n}\n",
    )
    .expect("reads");
    assert_eq!(p.resolve("k").expect("found"), "::k");
}

#[test]
fn kernels_are_found_however_they_are_declared() {
    let p = read(
        "namespace outer { namespace {\n\
         template <typename T, int N> __global__ void __launch_bounds__(256) a(T* x) {}\n\
         } }\n\
         void __global__ b(const float* x, float* y) {}\n\
         extern \"C\" __global__ void c(int n);\n\
         extern \"C\" { __global__ void c(int n) {} }\n\
         struct S { __device__ void m() {} };\n",
    )
    .expect("reads");
    let names: Vec<&str> = p.kernels().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(p.resolve("a<float, 4>").unwrap(), "::outer::a<float, 4>");
    assert_eq!(p.resolve("outer::a<int,2>").unwrap(), "::outer::a<int,2>");
    assert_eq!(p.resolve(" b ").unwrap(), "::b");
    let e = p.resolve("b<int>").unwrap_err().to_string();
    assert!(e.contains("`b` is not a template"), "{e}");
    let e = p.resolve("a").unwrap_err().to_string();
    assert!(
        e.contains(":2: `a` is a template <typename T, int N>"),
        "{e}"
    );
    let e = p.resolve("d").unwrap_err().to_string();
    assert!(
        e.contains("no __global__ function `d`; its kernels: outer::a"),
        "{e}"
    );
}

#[test]
fn two_kernels_of_one_name_must_be_qualified() {
    let p =
        read("namespace x { __global__ void k() {} }\nnamespace y { __global__ void k() {} }\n")
            .expect("reads");
    let e = p.resolve("k").unwrap_err().to_string();
    assert!(e.contains("`k` is ambiguous: x::k, y::k"), "{e}");
    assert_eq!(p.resolve("y::k").unwrap(), "::y::k");
}

#[test]
fn struct_fields_are_named_for_the_wrapper() {
    let p = read(
        "struct P { const float* x; float* y, *z; int n; __device__ int twice() const { return 2 * n; } };\n\
         typedef struct { int a; } Q;\n\
         struct R : P { int extra; };\n\
         struct B { int flag : 1; };\n\
         __global__ void k(P p, Q q, R r, B b) {}\n",
    )
    .expect("reads");
    let f = p.fields(&["::k".to_string()]);
    assert!(f.contains("fields<::P>") && f.contains("WK_PLAIN_FIELD(::P, x); WK_PLAIN_FIELD(::P, y); WK_PLAIN_FIELD(::P, z); WK_PLAIN_FIELD(::P, n);"), "{f}");
    assert!(f.contains("WK_PLAIN_FIELD(::Q, a);"), "{f}");
    // A base class or a bit-field: fields not all nameable, so no description (the kernel's
    // descriptor then names the type as one it cannot pass).
    assert!(!f.contains("::R") && !f.contains("::B"), "{f}");
}

#[test]
fn local_headers_are_read_and_fragments_included_in_a_body_are_not() {
    let main = write(&[
        (
            "main.cu",
            "#include \"util.cuh\"\n__global__ void k(float* x) {\n#include \"body.inc\"\n}\n",
        ),
        (
            "util.cuh",
            "#pragma once\n__device__ float twice(float v) { return 2 * v; }\n__global__ void from_header() {}\n",
        ),
        ("body.inc", "x[0] = twice(x[0]);\n"),
    ]);
    let p = Program::read(&main).expect("reads");
    let _ = std::fs::remove_dir_all(main.parent().expect("its folder"));
    let names: Vec<&str> = p.kernels().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["k", "from_header"]);
    assert!(!p.dynamic_shared() && !p.is_hip());
}

#[test]
fn hip_and_dynamic_shared_memory_are_noticed() {
    let p = read(
        "#include <hip/hip_runtime.h>\n__global__ void k() {\n  HIP_DYNAMIC_SHARED(float, s)\n}\n",
    )
    .expect("reads");
    assert!(p.is_hip() && p.dynamic_shared());
    let p = read("__global__ void k() {\n  extern __shared__ float s[];\n  s[0] = __shfl_down(s[0], 1);\n}\n")
        .expect("reads");
    assert!(p.is_hip() && p.dynamic_shared());
}

#[test]
fn a_file_that_is_not_there_is_an_error() {
    let e = Program::read("no/such/file.cu".as_ref()).unwrap_err();
    assert!(matches!(e, WavekitError::UserSource { line: 0, .. }), "{e}");
    assert!(
        e.to_string().starts_with("no/such/file.cu: cannot read it"),
        "{e}"
    );
}

#[test]
fn a_program_built_for_a_cooperative_launch_keeps_its_grid_syncs() {
    let src = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n\
               __device__ void wait(cg::grid_group& grid) {\n  cg::sync(grid);\n}\n\
               __global__ void k(int* o) {\n  auto g = cg::this_grid();\n  o[0] = 1;\n  \
               g.sync();\n  wait(g);\n}\n";
    // Not cooperative: refused at the first one, naming the flag that runs it.
    let (line, m) = refusal(src);
    assert_eq!(line, 4, "{m}");
    assert!(
        m.contains("cudaLaunchCooperativeKernel") && m.contains("pass --cooperative"),
        "{m}"
    );
    let mut p = read(src).expect("reads");
    assert!(!p.is_cooperative());
    p.set_cooperative(true);
    assert!(p.is_cooperative());
    let e = p.resolve("k").expect("found");
    let dir = write(&[("unused", "")])
        .parent()
        .expect("its folder")
        .join("out");
    let wrapper = p.write(&dir, &[e]).expect("grid.sync() is not refused");
    let w = std::fs::read_to_string(&wrapper).expect("the wrapper");
    assert!(w.contains("#define WK_PLAIN_COOPERATIVE 1"), "{w}");
    // Before the layer's headers, which read it.
    assert!(
        w.find("WK_PLAIN_COOPERATIVE") < w.find("#include <wavekit_plain.h>"),
        "{w}"
    );
    let copy = std::fs::read_to_string(dir.join("src").join("k.cu")).expect("the copy");
    assert!(
        copy.contains("  cg::sync(grid);") && copy.contains("  g.sync();"),
        "{copy}"
    );
    let _ = std::fs::remove_dir_all(dir.parent().expect("its folder"));
    // What a cooperative launch does not model is still refused.
    let mut p = read(
        "#include <cooperative_groups.h>\n__global__ void k(int* o) {\n  \
         cooperative_groups::this_grid().sync();\n  asm(\"exit;\");\n}\n",
    )
    .expect("reads");
    p.set_cooperative(true);
    let e = p.resolve("k").expect("found");
    let dir = write(&[("unused", "")])
        .parent()
        .expect("its folder")
        .join("out");
    match p.write(&dir, &[e]) {
        Err(WavekitError::UserSource { line, message, .. }) => {
            assert_eq!(line, 4, "{message}");
            assert!(message.contains("inline assembly"), "{message}");
        }
        other => panic!("not refused: {other:?}"),
    }
    let _ = std::fs::remove_dir_all(dir.parent().expect("its folder"));
}

#[test]
fn namespace_scope_shared_of_a_header_is_bound_in_the_main_files_functions() {
    let main = write(&[
        (
            "main.cu",
            "#include \"tiles.cuh\"\n__global__ void k(int* o) {\n  tile[threadIdx.x] = 1;\n  \
             o[0] = first();\n}\n",
        ),
        (
            "tiles.cuh",
            "#pragma once\n__shared__ int tile[32];\n__device__ int first() { return tile[0]; }\n",
        ),
    ]);
    let p = Program::read(&main).expect("reads");
    let e = p.resolve("k").expect("found");
    let dir = main.parent().expect("its folder").join("out");
    p.write(&dir, &[e]).expect("nothing refused");
    let copy = |name: &str| std::fs::read_to_string(dir.join("src").join(name)).expect(name);
    let (m, h) = (copy("main.cu"), copy("tiles.cuh"));
    let _ = std::fs::remove_dir_all(main.parent().expect("its folder"));
    let bind = "wk_shared_tile_2& tile = ::wk_plain::shared_var<wk_shared_tile_2>(&wk_shared_key_tile_2, \"tile\");";
    assert!(
        h.contains(
            "typedef int wk_shared_tile_2 [ 32 ]; static const char wk_shared_key_tile_2 = 0;"
        ),
        "{h}"
    );
    assert!(h.contains(&format!("int first() {{{bind}")), "{h}");
    assert!(m.contains(&format!("void k(int* o) {{{bind}")), "{m}");
    assert_eq!(m.lines().count(), 6, "{m}");
}

#[test]
fn latin_1_bytes_and_windows_line_ends_read_as_the_compiler_reads_them() {
    // An old SDK header: CRLF line ends, a macro continued over them whose body has braces
    // (code at namespace scope, were the continuations missed), a host function using it, and
    // a Latin-1 `©` in a comment (not UTF-8).
    let header = b"// Copyright \xa9 2015\r\n#define CHECK(x) \\\r\n  if (!(x)) \\\r\n  { \\\r\n    return 1; \\\r\n  }\r\nstatic int host_only() { CHECK(1); return 0; }\r\n";
    let main = "#include \"sdk.hpp\"\n__global__ void k(int* o) {\n  o[0] = 1;\n}\n";
    let path = write(&[("k.cu", main)]);
    let dir = path.parent().expect("its folder").to_path_buf();
    std::fs::write(dir.join("sdk.hpp"), header).expect("written");
    let p = Program::read(&path).expect("reads");
    let names: Vec<(&str, u32)> = p.kernels().map(|k| (k.name.as_str(), k.line)).collect();
    assert_eq!(names, [("k", 2)]);
    let out = dir.join("out");
    let k = p.resolve("k").expect("found");
    p.write(&out, &[k]).expect("written out");
    let copy = std::fs::read_to_string(out.join("src").join("sdk.hpp")).expect("the copy");
    let _ = std::fs::remove_dir_all(&dir);
    // The macro whole, the host body emptied, every line where it was.
    assert!(
        copy.contains("#define CHECK(x) \\\n  if (!(x)) \\\n  { \\\n    return 1; \\\n  }\n"),
        "{copy}"
    );
    assert!(!copy.contains("CHECK(1)"), "{copy}");
    assert_eq!(copy.lines().count(), 8, "{copy}");
}

#[test]
fn a_type_alias_of_a_refused_type_is_refused_where_a_kernel_names_it() {
    // llm.c's common.h: `typedef __nv_bfloat16 floatX;`, then kernels on floatX.
    let src = "#include <cuda_bf16.h>\n\
               typedef __nv_bfloat16 floatX;\n\
               using half_t = __half;\n\
               __device__ float up(floatX v) { return (float)v; }\n\
               __global__ void k(floatX* o) { o[0] = o[1]; }\n\
               __global__ void h(half_t* o) { o[0] = o[1]; }\n\
               __global__ void f(float* o) { o[0] = 1.0f; }\n";
    let (line, message) = refusal(src);
    assert_eq!(line, 2, "{message}");
    assert!(message.contains("__nv_bfloat16"), "{message}");
    match written(src, "h") {
        Err(WavekitError::UserSource { line, message, .. }) => {
            assert_eq!(line, 3, "{message}");
            assert!(message.contains("half"), "{message}");
        }
        other => panic!("not refused: {other:?}"),
    }
    // A kernel that names neither runs; the helper on floatX it does not reach is emptied.
    let dir = written(src, "f").expect("f reaches no alias");
    let copy = std::fs::read_to_string(dir.join("src").join("k.cu")).expect("the copy");
    let _ = std::fs::remove_dir_all(dir.parent().expect("its folder"));
    assert!(!copy.contains("return (float)v;"), "{copy}");
    assert!(copy.contains("o[0] = 1.0f;"), "{copy}");
}

#[test]
fn a_library_header_included_with_quotes_and_absent_is_the_vendor_imitation() {
    // NVIDIA's shuffle-reduction post includes CUB from a submodule (`"cub/cub/cub.cuh"`); a
    // program's own header whose name starts like a library's is still read.
    let main = write(&[
        (
            "k.cu",
            "#include \"cub/cub/cub.cuh\"\n#include \"curand_util.h\"\n\
             __global__ void k(int* o) { o[0] = seed(); }\n",
        ),
        ("curand_util.h", "__device__ int seed() { return 7; }\n"),
    ]);
    let dir = main.parent().expect("its folder").to_path_buf();
    let p = Program::read(&main).expect("reads");
    let k = p.resolve("k").expect("found");
    p.write(&dir.join("out"), &[k]).expect("written out");
    let copy = std::fs::read_to_string(dir.join("out").join("src").join("k.cu")).expect("copy");
    let _ = std::fs::remove_dir_all(&dir);
    let lines: Vec<&str> = copy.lines().collect();
    assert_eq!(lines[1], "#include <wk_vendor.h>", "{copy}");
    assert_eq!(lines[2], "#include \"curand_util.h\"", "{copy}");
}

#[test]
fn a_header_is_read_with_the_macros_its_includer_defined_before_including_it() {
    // llm.c's gelu_forward.cu: `#define ENABLE_BF16`, then common.h picks floatX by it.
    let header = "#if defined(ENABLE_BF16)\ntypedef __nv_bfloat16 floatX;\n#else\n\
                  typedef float floatX;\n#endif\n";
    let kernel = "__global__ void k(floatX* o) { o[0] = o[1]; }\n";
    let bf16 = write(&[
        (
            "k.cu",
            &format!("#define ENABLE_BF16\n#include \"common.h\"\n{kernel}"),
        ),
        ("common.h", header),
    ]);
    let plain = write(&[
        ("k.cu", &format!("#include \"common.h\"\n{kernel}")),
        ("common.h", header),
    ]);
    let check = |main: &PathBuf| {
        let p = Program::read(main).expect("reads");
        let out = main.parent().expect("its folder").join("out");
        let r = p.resolve("k").and_then(|k| p.write(&out, &[k]));
        let _ = std::fs::remove_dir_all(main.parent().expect("its folder"));
        r
    };
    match check(&bf16) {
        Err(WavekitError::UserSource {
            file,
            line,
            message,
        }) => {
            assert!(
                file.ends_with("common.h") && line == 2,
                "{file}:{line}: {message}"
            );
            assert!(message.contains("__nv_bfloat16"), "{message}");
        }
        other => panic!("not refused: {other:?}"),
    }
    check(&plain).expect("floatX is float");
}
