// wavekit's public device API: the one header a user's kernel includes. The same source builds
// with nvcc (CUDA), hipcc (HIP, wave64 and wave32) and for the SIMT executor at 32 and 64 lanes
// (wavekit-kernels's `user` module, `wavekit check`), where every launch is checked for hazards.
// docs/DEVICE_API.md is the guide; in short:
//
//   #include <wavekit.h>
//   WK_KERNELS_BEGIN                       // the kernels of one build (one per width)
//   __global__ void my_kernel(const int* in, int* out, unsigned n) {
//     const wk_lanemask_t m = arch::ballot_sync(WK_FULL_MASK, in[threadIdx.x] > 0);
//     ...
//   }
//   WK_KERNELS_END
//   WK_EXPORT_KERNEL(my_kernel)            // a launch entry point the host side finds by name
//
// What kernels may use, inside WK_KERNELS_BEGIN/END:
// - WK_WARP_SIZE, wk_lanemask_t and WK_FULL_MASK (width.h): the width of the code being
//   compiled, never a literal 32 or 64;
// - arch:: (arch_cuda.h, arch_hip.h; arch_simt.h on the executor): lane_id, lanemask_lt/le/gt/
//   ge, popc, lowest_lane, all/any/uni/ballot_sync, ballot_agree, activemask, syncwarp,
//   shfl_{idx,up,down,xor}_sync(mask, v, arg, width), match_any/all_sync, fence_block/device;
// - prims:: (prims.h): element-typed shuffles, votes, segments and tiles, the canonical float
//   reduction trees of docs/SEMANTICS.md;
// - threadIdx, blockIdx, blockDim, gridDim, __syncthreads, atomics, and shared memory declared
//   with WK_SHARED(T, name, N), WK_SHARED_VAR(T, name) or WK_DYNAMIC_SHARED(T, name) (a plain
//   __shared__ does not build for the executor, which tracks every shared access);
// - CUDA's 32-bit __popc/__ffs/__clz, which on the executor report a wave64 mask cut to 32 bits.
#pragma once

#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
// Before the layer: the executor's arch header defines CUDA's `__noinline__` as a macro, which
// the C++ library's own `__attribute__((__noinline__))` (GCC 13's <string>) must not meet.
#include <stddef.h>
#include <string>  // unused here: a kernel that includes it after this header gets it intact
#include <utility>
#endif

#include "wavekit/prims.h"

#if defined(WK_VENDOR_HOST)
#include "simt/checked.h"
#endif

// The warp collectives a kernel of yours calls, bit for bit those of wavekit's warp_reduce and
// warp_scan collectives (docs/SEMANTICS.md, the canonical trees), so a kernel's per-warp results
// can be compared with the CPU backend's: every lane of the warp calls them (the full mask), and
// each segment of `width` lanes (a power of two up to WK_WARP_SIZE) is reduced or scanned on its
// own. `op` is one of OP_SUM, OP_PRODUCT, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR (ops.h).
//   int s = warp_reduce<OP_SUM>(v);            // every lane gets its warp's sum
//   float p = warp_scan<OP_SUM>(x, 16);        // inclusive prefix within each 16 lanes
//   auto m = warp_arg_reduce<OP_MIN>(x);       // m.value, m.lane: the warp's first minimum
namespace WK_NS {
template <int OP, typename T>
__device__ __forceinline__ T warp_reduce(T v, unsigned width = WK_WARP_SIZE) {
  return prims::bfly<OP, T>(WK_FULL_MASK, v, width);
}
template <int OP, typename T>
__device__ __forceinline__ T warp_scan(T v, unsigned width = WK_WARP_SIZE) {
  return prims::kogge_stone<OP, T>(WK_FULL_MASK, v, width);
}

// argmin / argmax over each segment of `width` lanes, bit for bit wavekit's warp_arg_reduce
// (docs/SEMANTICS.md "arg_reduce"): every lane gets the value of its segment's first smallest
// (OP_MIN) or largest (OP_MAX) lane and that lane's number within the segment. A NaN wins over
// every number (the first NaN); -0.0 orders below +0.0.
//   ArgResult<float> m = warp_arg_reduce<OP_MAX>(x);   // m.value, m.lane
template <typename T> struct ArgResult {
  T value;
  unsigned lane;
};
template <int OP, typename T>
__device__ __forceinline__ ArgResult<T> warp_arg_reduce(T v, unsigned width = WK_WARP_SIZE) {
  static_assert(OP == OP_MIN || OP == OP_MAX, "warp_arg_reduce takes OP_MIN or OP_MAX");
  const unsigned at = prims::arg_lane<OP, T>(WK_FULL_MASK, v, true, width);
  ArgResult<T> r = {prims::shfl_idx(WK_FULL_MASK, v, at, width), at};
  return r;
}
}  // namespace WK_NS

// The kernels of one build live in its namespace (wk_cuda, wk_hip, or one per executor width),
// so both widths link into one program.
#define WK_KERNELS_BEGIN namespace WK_NS {
#define WK_KERNELS_END }

#if defined(WK_RTC)
// A runtime compile (NVRTC, hipRTC): the user's host code loads the module and launches the
// kernels itself, so there is no launch entry point to define; the line only checks that the
// kernel exists. wavekit's compile helpers find the kernel by this name (WK_NS::name's lowered
// name), and wavekit::simt::check_source builds the same source for the executor, where the
// line defines what it does below.
#define WK_EXPORT_KERNEL(name) static_assert(sizeof(&::WK_NS::name) != 0, #name)
#else

// The descriptor ABI below is shared with csrc/simt/plain/exports.h (plain CUDA and HIP
// checked by `wavekit check`), whichever is seen first defining it.
#ifndef WK_KERNEL_DESC_DEFINED
#define WK_KERNEL_DESC_DEFINED
extern "C" {
// How the host side launches an exported kernel: grid and block as x, y, z; `args[i]` points
// at the value of parameter i (for a pointer parameter, at the pointer). Returns the build's
// launch error code (0 when the launch ran; on the executor, WK_SIMT_HAZARDS when it reported
// hazards, which the session holds).
typedef int (*wk_kernel_launch_fn)(void* stream, const unsigned* grid, const unsigned* block,
                                   size_t dynamic_shared_bytes, void* const* args);
// What WK_EXPORT_KERNEL(name) defines as `<WK_NS>_kernel_<name>`: wk_user32_kernel_my_kernel
// on the executor at 32 lanes, wk_cuda_kernel_my_kernel with nvcc.
struct wk_kernel_desc {
  const char* name;
  unsigned warp_size;
  // The parameter types, comma separated: i32, u32, i64, u64, f32, f64, a pointer as the
  // element type followed by `*`, `const` first when the kernel only reads it.
  const char* (*params)(void);
  wk_kernel_launch_fn launch;
};
}
#endif

namespace WK_NS {
namespace user {

template <class T>
struct type_name;
#define WK_USER_TYPE(T, s) \
  template <>              \
  struct type_name<T> {    \
    static constexpr const char* value = s; \
  };
WK_USER_TYPE(int, "i32")
WK_USER_TYPE(unsigned, "u32")
WK_USER_TYPE(long long, "i64")
WK_USER_TYPE(unsigned long long, "u64")
WK_USER_TYPE(long, "i64")
WK_USER_TYPE(unsigned long, "u64")
WK_USER_TYPE(float, "f32")
WK_USER_TYPE(double, "f64")
#undef WK_USER_TYPE

// A parameter's spelling in three parts (`const `, the type, `*`), all string literals: the
// list is built at compile time, so asking for it cannot allocate or throw into the Rust caller.
template <class T>
struct param {
  static constexpr const char* pre = "";
  static constexpr const char* base = type_name<T>::value;
  static constexpr const char* post = "";
};
template <class T>
struct param<T*> {
  static constexpr const char* pre = "";
  static constexpr const char* base = type_name<T>::value;
  static constexpr const char* post = "*";
};
template <class T>
struct param<const T*> {
  static constexpr const char* pre = "const ";
  static constexpr const char* base = type_name<T>::value;
  static constexpr const char* post = "*";
};

constexpr size_t text_len(const char* s) {
  size_t n = 0;
  while (s[n] != 0) ++n;
  return n;
}

// The list's characters and its terminating zero, in a fixed array.
template <size_t N>
struct param_text {
  char s[N];
};

template <size_t N>
constexpr void append(param_text<N>& out, size_t& at, const char* s) {
  for (size_t i = 0; s[i] != 0; ++i) out.s[at++] = s[i];
}

template <class... A>
constexpr auto param_list() {
  constexpr size_t n =
      (size_t{1} + ... +
       (text_len(param<A>::pre) + text_len(param<A>::base) + text_len(param<A>::post) + 1));
  param_text<n> out{};
  size_t at = 0;
  ((append(out, at, at == 0 ? "" : ","), append(out, at, param<A>::pre),
    append(out, at, param<A>::base), append(out, at, param<A>::post)),
   ...);
  out.s[at] = 0;
  return out;
}

template <class... A>
struct param_list_of {
  static constexpr auto value = param_list<A...>();
};

// The parameter list of kernel type void(A...), as wk_kernel_desc::params spells it.
template <class... A>
const char* params(void (*)(A...)) noexcept {
  return param_list_of<A...>::value.s;
}

// Calls `launch` with the kernel's arguments read from `args` (see wk_kernel_launch_fn).
template <class... A, size_t... I, class L>
int unpack(void (*)(A...), void* const* args, std::index_sequence<I...>, L launch) {
  return launch(*static_cast<A*>(args[I])...);
}
template <class... A, class L>
int call(void (*k)(A...), void* const* args, L launch) {
  return unpack(k, args, std::index_sequence_for<A...>{}, launch);
}

}  // namespace user
}  // namespace WK_NS

#define WK_USER_PASTE2(a, b) a##_kernel_##b
#define WK_USER_PASTE(a, b) WK_USER_PASTE2(a, b)
#define WK_USER_PASTE_LAUNCH2(a, b) a##_launch_##b
#define WK_USER_PASTE_LAUNCH(a, b) WK_USER_PASTE_LAUNCH2(a, b)

// Exports kernel `name` (declared inside WK_KERNELS_BEGIN/END) to the host side: a launch entry
// point and its wk_kernel_desc, `<WK_NS>_kernel_<name>`.
#define WK_EXPORT_KERNEL(name)                                                                \
  extern "C" int WK_USER_PASTE_LAUNCH(WK_NS, name)(void* stream, const unsigned* g,          \
                                                  const unsigned* b, size_t shmem,           \
                                                  void* const* args) {                       \
    return ::WK_NS::user::call(&::WK_NS::name, args, [&](auto... a) {                        \
      WK_LAUNCH(dim3(g[0], g[1], g[2]), dim3(b[0], b[1], b[2]), shmem,                        \
                (::WK_NS::host::stream_t)stream, ::WK_NS::name)(a...);                        \
      return ::WK_NS::host::launch_error();                                                   \
    });                                                                                       \
  }                                                                                           \
  extern "C" const wk_kernel_desc WK_USER_PASTE(WK_NS, name) = {                             \
      #name, WK_WARP_SIZE,                                                                    \
      [] { return ::WK_NS::user::params(&::WK_NS::name); },                                   \
      &WK_USER_PASTE_LAUNCH(WK_NS, name)}
#endif  // WK_RTC
