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
const GRID_SYNC: &str = "a grid-wide cooperative group: the executor runs a grid's blocks one \
                         after another, so grid.sync() cannot be modelled";

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
        "this_grid" | "grid_group" | "this_multi_grid" | "multi_grid_group" => GRID_SYNC,
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

/// The construct identifier `word` in a macro's body belongs to: inline assembly, textures
/// and tensor cores only (a macro of host code may well call the runtime).
pub fn in_macro(word: &str) -> Option<String> {
    match word {
        "asm" | "__asm__" | "__asm" => Some(named(word, ASM)),
        _ => ident(word, false).filter(|w| w.contains("texture") || w.contains("tensor")),
    }
}

/// What a system header the file includes is, if the executor has nothing in its place.
pub fn header(path: &str) -> Option<String> {
    let what = if path == "mma.h" || path.starts_with("rocwmma/") {
        TENSOR
    } else if path.starts_with("cub/") || path.starts_with("hipcub/") {
        "CUB/hipCUB: the executor models the warp intrinsics CUB is built on, not CUB itself"
    } else if path.starts_with("rocprim/") {
        "rocPRIM: the executor models the warp intrinsics it is built on, not rocPRIM itself"
    } else if path.starts_with("thrust/") {
        "Thrust: host-side algorithms, not kernels the executor can run"
    } else if path.starts_with("cuda/") {
        "libcu++ (cuda::): not modelled by the executor"
    } else if matches!(
        path,
        "cuda_fp16.h" | "cuda_bf16.h" | "cuda_fp8.h" | "hip/hip_fp16.h" | "hip/hip_bf16.h"
    ) {
        "half-precision types: not modelled by the executor"
    } else if path.starts_with("cublas")
        || path.starts_with("cusparse")
        || path.starts_with("cufft")
        || path.starts_with("curand")
        || path.starts_with("hipblas")
        || path.starts_with("rocblas")
    {
        "a CUDA/ROCm math library: not modelled by the executor"
    } else {
        return None;
    };
    Some(format!("`#include <{path}>`: {what}"))
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
        assert!(header("cub/cub.cuh").unwrap().contains("CUB"));
        assert_eq!(header("stdio.h"), None);
        assert_eq!(in_macro("cudaDeviceSynchronize"), None);
        assert!(in_macro("asm").is_some());
    }
}
