//! The constructs of CUDA and HIP device code the SIMT executor cannot model, each with the
//! sentence a user is told, and the spellings that say a file is HIP.

/// A launch (`<<<...>>>`) in device code.
pub const DYNAMIC_PARALLELISM: &str = "a kernel launch (`<<<...>>>`) in device code: dynamic \
                                       parallelism (kernels launching kernels) is not modelled \
                                       by the executor";

const ASM: &str = "inline assembly (PTX or GCN instructions): the executor runs C++ on the CPU \
                   and cannot execute GPU instructions; write the operation in C++ or with the \
                   CUDA/HIP intrinsic that does it";
const TEXTURE: &str = "texture and surface memory: the executor does not model textures (their \
                       caches, filtering and addressing modes); read through a plain pointer";
const TENSOR: &str = "tensor core matrix instructions (wmma/mma): the executor does not model \
                      matrix fragments";
const DEVICE_LAUNCH: &str = "a runtime call from device code (dynamic parallelism): the executor \
                             does not launch or synchronise kernels from kernels";
/// `grid.sync()` on a grid group (this_grid()), in a program not built for a cooperative
/// launch.
pub const GRID_SYNC: &str = "`grid.sync()`: a barrier across the whole grid, which only a \
                             cooperative launch may reach (CUDA requires \
                             cudaLaunchCooperativeKernel, HIP hipLaunchCooperativeKernel): pass \
                             --cooperative to run the grid's blocks co-resident with grid.sync() \
                             modelled; this_grid()'s thread_rank(), size(), num_threads(), \
                             group_dim() and the rest run without it";
const MULTI_GRID: &str = "a multi-grid cooperative group (several devices' grids): not \
                          modelled by the executor";

fn named(word: &str, what: &str) -> String {
    format!("`{word}`: {what}")
}

/// The construct identifier `word` belongs to, if the executor cannot model it; `in_body`
/// when it appears inside a function body (runtime calls are host code elsewhere).
pub fn ident(word: &str, in_body: bool) -> Option<String> {
    let what = match word {
        "asm" | "__asm__" | "__asm" => ASM,
        "texture"
        | "tex1D"
        | "tex1Dfetch"
        | "tex2D"
        | "tex3D"
        | "tex1DLayered"
        | "tex2DLayered"
        | "texCubemap"
        | "tex2Dgather"
        | "tex1DLod"
        | "tex2DLod"
        | "tex3DLod"
        | "tex2DGrad"
        | "cudaTextureObject_t"
        | "hipTextureObject_t"
        | "surf1Dread"
        | "surf1Dwrite"
        | "surf2Dread"
        | "surf2Dwrite"
        | "surf3Dread"
        | "surf3Dwrite"
        | "cudaSurfaceObject_t"
        | "hipSurfaceObject_t" => TEXTURE,
        "wmma" | "nvcuda" | "rocwmma" | "mma_sync" | "load_matrix_sync" | "store_matrix_sync"
        | "fill_fragment" => TENSOR,
        "this_multi_grid" | "multi_grid_group" => MULTI_GRID,
        "cudaDeviceSynchronize"
        | "cudaLaunchDevice"
        | "cudaGetParameterBuffer"
        | "cudaStreamTailLaunch"
        | "cudaStreamFireAndForget"
        | "hipDeviceSynchronize"
            if in_body =>
        {
            DEVICE_LAUNCH
        }
        w if w.starts_with("__builtin_amdgcn_mfma") || w.starts_with("__builtin_amdgcn_wmma") => {
            TENSOR
        }
        w if w.starts_with("__hmma_") || w.starts_with("__imma_") || w.starts_with("__bmma_") => {
            TENSOR
        }
        w if library(w).is_some() => {
            let lib = library(w).unwrap_or_default();
            return Some(named(
                w,
                &format!(
                    "{lib}, a library the executor does not model (its header parses, so the \
                     file's other kernels can be checked, but nothing of it runs)"
                ),
            ));
        }
        w if w.starts_with("__builtin_amdgcn_") => {
            return Some(named(
                w,
                "an AMDGCN builtin: the executor models the CUDA and HIP warp intrinsics, not \
                 the ISA's instructions; use the HIP function that wraps it",
            ));
        }
        _ => return None,
    };
    Some(named(word, what))
}

/// The library an identifier belongs to, by its prefix or namespace: cuBLAS, cuRAND, cuFFT,
/// cuSPARSE, cuSOLVER, their ROCm counterparts, CUTLASS/CuTe, CUB, Thrust and half precision.
pub fn library(word: &str) -> Option<&'static str> {
    const PREFIXES: &[(&str, &str)] = &[
        ("cublas", "cuBLAS"),
        ("CUBLAS_", "cuBLAS"),
        ("curand", "cuRAND"),
        ("CURAND_", "cuRAND"),
        ("cufft", "cuFFT"),
        ("CUFFT_", "cuFFT"),
        ("cusparse", "cuSPARSE"),
        ("CUSPARSE_", "cuSPARSE"),
        ("cusolver", "cuSOLVER"),
        ("rocblas_", "rocBLAS"),
        ("hipblas", "hipBLAS"),
        ("hiprand", "hipRAND"),
        ("rocrand_", "rocRAND"),
        ("hipfft", "hipFFT"),
        ("rocfft_", "rocFFT"),
        ("hipsparse", "hipSPARSE"),
        ("rocsparse_", "rocSPARSE"),
        ("hipsolver", "hipSOLVER"),
        ("rocsolver_", "rocSOLVER"),
        ("__float2half", "half precision"),
        ("__half2", "half precision"),
        ("__float2bfloat16", "half precision"),
        ("__bfloat162", "half precision"),
    ];
    match word {
        "cutlass" => return Some("CUTLASS"),
        "cute" => return Some("CuTe"),
        "cub" | "hipcub" => return Some("CUB/hipCUB"),
        "rocprim" => return Some("rocPRIM"),
        "thrust" => return Some("Thrust"),
        "__half" | "__nv_bfloat16" | "__nv_bfloat162" | "hip_bfloat16" | "__hadd" | "__hmul"
        | "__hfma" | "__hsub" => return Some("half precision"),
        _ => {}
    }
    PREFIXES
        .iter()
        .find(|(p, _)| word.starts_with(p))
        .map(|(_, lib)| *lib)
}

/// Whether a refused identifier parses through the imitation headers (a type, a namespace of
/// a library): outside device code it is left to the compiler, not refused.
pub fn parses(word: &str) -> bool {
    !matches!(word, "asm" | "__asm__" | "__asm")
}

/// The construct identifier `word` in a macro's body belongs to: inline assembly, textures
/// and tensor cores only (a macro of host code may well call the runtime).
pub fn in_macro(word: &str) -> Option<String> {
    match word {
        "asm" | "__asm__" | "__asm" => Some(named(word, ASM)),
        _ => ident(word, false).filter(|w| w.contains("texture") || w.contains("tensor")),
    }
}

/// Whether a system header the file includes belongs to a library the executor does not
/// model: the rewriter replaces its `#include` with csrc/simt/plain/wk_vendor.h (the library's
/// common types, so that declarations naming them parse), and a use of the library in code the
/// checked kernel reaches is refused there.
pub fn vendor_header(path: &str) -> bool {
    const DIRS: &[&str] = &[
        "cub/",
        "hipcub/",
        "rocprim/",
        "thrust/",
        "cuda/",
        "cutlass/",
        "cute/",
        "rocwmma/",
        "rocblas/",
        "hipblas/",
        "hiprand/",
        "rocrand/",
        "hipfft/",
        "rocfft/",
        "hipsparse/",
        "rocsparse/",
        "hipsolver/",
        "rocsolver/",
        "hipblaslt/",
    ];
    const PREFIXES: &[&str] = &[
        "cublas",
        "cusparse",
        "cufft",
        "curand",
        "cusolver",
        "hipblas",
        "rocblas",
        "hiprand",
        "rocrand",
        "hipfft",
        "rocfft",
        "hipsparse",
        "rocsparse",
        "nvtx",
        "cuda_fp16",
        "cuda_bf16",
        "cuda_fp8",
    ];
    DIRS.iter().any(|d| path.starts_with(d))
        || PREFIXES.iter().any(|p| path.starts_with(p))
        || matches!(
            path,
            "mma.h" | "hip/hip_fp16.h" | "hip/hip_bf16.h" | "hip/hip_bfloat16.h"
        )
}

/// Whether `word` is spelled only in HIP (or in CUDA before 9, whose warps were lockstep).
pub fn is_hip(word: &str) -> bool {
    matches!(
        word,
        "hipThreadIdx_x"
            | "hipThreadIdx_y"
            | "hipThreadIdx_z"
            | "hipBlockIdx_x"
            | "hipBlockDim_x"
            | "hipGridDim_x"
            | "HIP_DYNAMIC_SHARED"
            | "hipLaunchKernelGGL"
            | "__shfl"
            | "__shfl_up"
            | "__shfl_down"
            | "__shfl_xor"
            | "__ballot"
            | "__any"
            | "__all"
            | "__lane_id"
            | "hipMalloc"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_construct_is_named() {
        assert!(
            ident("asm", true)
                .unwrap()
                .starts_with("`asm`: inline assembly")
        );
        assert!(ident("tex1Dfetch", true).unwrap().contains("texture"));
        assert!(ident("wmma", true).unwrap().contains("tensor core"));
        assert!(
            ident("cudaDeviceSynchronize", true)
                .unwrap()
                .contains("dynamic")
        );
        assert_eq!(ident("cudaDeviceSynchronize", false), None);
        assert!(
            ident("__builtin_amdgcn_ds_bpermute", true)
                .unwrap()
                .contains("AMDGCN")
        );
        assert_eq!(ident("__shfl_down_sync", true), None);
        assert!(vendor_header("cub/cub.cuh") && vendor_header("cublas_v2.h"));
        assert!(!vendor_header("stdio.h"));
        assert!(ident("cublasSgemm", true).unwrap().contains("cuBLAS"));
        assert!(ident("curand_uniform", true).unwrap().contains("cuRAND"));
        assert_eq!(ident("this_grid", true), None);
        assert_eq!(ident("grid_group", true), None);
        assert_eq!(in_macro("cudaDeviceSynchronize"), None);
        assert!(in_macro("asm").is_some());
    }
}
