// arg_reduce: argmin / argmax (docs/SEMANTICS.md "arg_reduce"). Every form selects the
// (key, index) pair of the smallest key, ties to the lower index (prims::arg_key: a NaN is the
// smallest key, so the first NaN wins; -0.0 orders below +0.0). That is a total order, so any
// tree of selections gives the same element, bit for bit: no canonical combining order.
//   device:    one launch, arg_reduce_kernel: blocks stride over the input in 16-byte vectors
//              (kVecItems in flight a thread, the last batch too; element by element when
//              misaligned and for the last few; 16-bit keys two to a 32-bit word, take16), on a
//              grid the SMs hold at once (arg_grid), each block selecting one (key, index)
//              partial into the scratch; the block that arrives last at the ticket selects
//              among the partials and writes the value (from its key; a NaN read back from the
//              input at the winning index) and the index. The ticket is the device reduce's
//              kind (device_reduce.cu): zero before the first call, reset by the last block, so
//              no memset and no second launch is queued (CUB's ArgMin takes two launches; at
//              2^20 the second launch and its gap were most of the difference).
//   segmented: `vector` lanes per segment, as segmented_reduce (lane j takes items j, j + V, ...,
//              then a butterfly over the V lanes).
//   warp:      one lane per value, a butterfly over each segment of `width` lanes.
#include "device.h"

namespace WK_NS {
using namespace prims;

namespace {

// Loads in flight per thread in the device form's strided loops: elements, and 16-byte vectors
// of an aligned input.
const unsigned kItems = 8;
const unsigned kVecItems = 4;
// Warps of a kBlock-thread block (at most WK_WARP_SIZE, so one warp reduces their results).
const unsigned kWarps = kBlock / WK_WARP_SIZE;
// No element: the index of an empty segment and of a lane that took nothing.
const uint32_t kNone32 = ~(uint32_t)0;
const uint64_t kNone64 = ~(uint64_t)0;

// Calls f(OpTag<OP>()) for OP_MIN or OP_MAX; any other op is refused.
template <typename F> int with_arg_op(uint32_t op, F&& f) {
  switch (op) {
    case OP_MIN: return f(OpTag<OP_MIN>());
    case OP_MAX: return f(OpTag<OP_MAX>());
    default: return WK_ERR_ARG;
  }
}

// The most blocks of the device form's first launch (the scratch holds a partial each):
// kItems elements a thread, at most kMaxGrid.
unsigned partial_blocks(uint64_t n) {
  const uint64_t per = (uint64_t)kBlock * kItems;
  const uint64_t g = (n + per - 1) / per;
  return (unsigned)(g < kMaxGrid ? (g ? g : 1) : kMaxGrid);
}

// Blocks an SM the device form's registers must allow (ptxas, sm_90: the most without a spill;
// the 16-bit floats' take16 spilled at eight).
template <typename T> struct ArgOccupancy {
  static const int blocks = sizeof(T) == 8 ? 5 : sizeof(T) == 2 ? 6 : 8;
};

// The device form's grid: no more blocks than the SMs hold at once (argmax f16 at 2^28 on an
// H200 took 162 us on 4096 blocks, 153 us on 1056), and no more than give each thread one
// batch of loads (argmin f32 at 2^20, Nsight Compute: 4.6 us on 256 blocks of one batch, 5.3
// us on 512 of half a batch each).
template <typename T> unsigned arg_grid(const T* in, uint64_t n) {
  const uint64_t per = ((uintptr_t)in % sizeof(uint4)) == 0
                           ? (uint64_t)kVecItems * (sizeof(uint4) / sizeof(T))
                           : (uint64_t)kItems;
  uint64_t g = (n + (uint64_t)kBlock * per - 1) / ((uint64_t)kBlock * per);
  const uint64_t resident = (uint64_t)host::multiprocessors() * ArgOccupancy<T>::blocks;
  if (resident && g > resident) g = resident;
  const unsigned most = partial_blocks(n);
  return g == 0 ? 1 : g < most ? (unsigned)g : most;
}

// Whether key k is taken over the thread's (key, index). An integer element can have the key
// ~0 a thread starts with (argmin of all the type's largest values, argmax of all its
// smallest): it is taken while the thread holds none. No float has that key.
template <typename T, typename U>
__device__ __forceinline__ bool beats(U k, U key, uint64_t index) {
  if constexpr (Elem<T>::is_float) return k < key;
  else return k < key || (k == key && index == kNone64);
}

// The block's selected pair, in thread 0 (every thread of the block calls it; it ends with the
// block synchronised). Keys are kept widened to 64 bits in shared memory.
template <typename U, typename G>
__device__ __forceinline__ void block_select(U& key, uint64_t& index, G skey, G sidx) {
  arg_bfly(WK_FULL_MASK, key, index, WK_WARP_SIZE);
  const unsigned w = threadIdx.x / WK_WARP_SIZE;
  if (lane() == 0) {
    skey[w] = (uint64_t)key;
    sidx[w] = index;
  }
  __syncthreads();
  if (threadIdx.x < WK_WARP_SIZE) {
    const bool live = threadIdx.x < blockDim.x / WK_WARP_SIZE;
    key = live ? (U)(uint64_t)skey[threadIdx.x] : (U)~(U)0;
    index = live ? (uint64_t)sidx[threadIdx.x] : kNone64;
    arg_bfly(WK_FULL_MASK, key, index, WK_WARP_SIZE);
  }
  __syncthreads();
}

// arg_key of the two 16-bit floats in the halves of w, computed on both at once (the same
// bits as arg_key of each, in the same half): a rank that orders as the values do (sign
// flips the magnitude bits, else sets the top bit), inverted for OP_MAX, and 0 for a NaN,
// found per half as a carry into bit 15 of its magnitude plus (0x7fff - infinity).
template <int OP, typename T> __device__ __forceinline__ uint32_t arg_keys2(uint32_t w) {
  const uint32_t neg = ((w >> 15) & 0x00010001u) * 0xffffu;
  uint32_t rank = w ^ (neg | 0x80008000u);
  if (OP == OP_MAX) rank = ~rank;
  const uint32_t nan =
      ((w & 0x7fff7fffu) + (0x7fffu - HalfBits<T>::kInf) * 0x00010001u) & 0x80008000u;
  return rank & ~((nan >> 15) * 0xffffu);
}

// The selection among the 16-bit floats of one 16-byte vector (element j at index first + j):
// the keys two to a word, their smallest found first with key comparisons only, and the
// (rarely taken, once the thread's key is small) search for the first element with it only
// when it beats the thread's key. A NaN's key is 0, the smallest: the first NaN wins.
template <int OP, typename T, typename U>
__device__ __forceinline__ void take16(const uint4& v, uint64_t first, U& key, uint64_t& index) {
  uint32_t w[4];
  __builtin_memcpy(w, &v, sizeof(w));
  uint32_t k[4];
#pragma unroll
  for (unsigned i = 0; i < 4; ++i) k[i] = arg_keys2<OP, T>(w[i]);
  U m = (U)0xffffu;
#pragma unroll
  for (unsigned i = 0; i < 4; ++i) {
    const U lo = k[i] & 0xffffu, hi = k[i] >> 16;
    m = lo < m ? lo : m;
    m = hi < m ? hi : m;
  }
  if (m < key) {
    unsigned at = 0;
#pragma unroll
    for (unsigned j = 8; j-- > 0;)
      if (((k[j / 2] >> (16 * (j % 2))) & 0xffffu) == m) at = j;
    key = m;
    index = first + at;
  }
}

// The selection among the live ones of kVecItems vectors of 4- or 8-byte elements loaded
// together (vector u at c + u * stride, element j at index (c + u * stride) * V + j): their
// smallest key first, with key comparisons only, and the search for the first element with it
// only when it beats the thread's key (rarely, once that key is small). A thread's indices
// grow with u and j, so the first match in that order is the lowest index among equal keys;
// the live vectors come first (vector 0 always is), so a match is never a dead one.
template <int OP, typename T, typename U>
__device__ __forceinline__ void take_vectors(const uint4 (&w)[kVecItems], const bool (&live)[kVecItems],
                                             uint64_t c, uint64_t stride, U& key, uint64_t& index) {
  const unsigned V = sizeof(uint4) / sizeof(T);
  U k[kVecItems * V];
#pragma unroll
  for (unsigned u = 0; u < kVecItems; ++u) {
    T e[V];
    __builtin_memcpy(e, &w[u], sizeof(uint4));
#pragma unroll
    for (unsigned j = 0; j < V; ++j) k[u * V + j] = live[u] ? arg_key<OP, T>(e[j]) : (U)~(U)0;
  }
  U m = k[0];
#pragma unroll
  for (unsigned x = 1; x < kVecItems * V; ++x) m = k[x] < m ? k[x] : m;
  if (beats<T>(m, key, index)) {
    unsigned at = 0;
#pragma unroll
    for (unsigned x = kVecItems * V; x-- > 0;)
      if (k[x] == m) at = x;
    key = m;
    index = (c + (at / V) * stride) * V + at % V;
  }
}

// A batch of kVecItems vectors of p's nv (vector u at c + u * stride; when GUARD, the
// thread's last batch, those past nv are not loaded), all loaded before any is compared:
// take16 of each 16-bit one, take_vectors of the others.
template <int OP, typename T, bool GUARD, typename U>
__device__ __forceinline__ void take_batch(const uint4* p, uint64_t c, uint64_t stride, uint64_t nv,
                                           U& key, uint64_t& index) {
  const unsigned V = sizeof(uint4) / sizeof(T);
  bool live[kVecItems];
  uint4 w[kVecItems];
#pragma unroll
  for (unsigned u = 0; u < kVecItems; ++u) {
    live[u] = !GUARD || c + u * stride < nv;
    w[u] = live[u] ? p[c + u * stride] : uint4();
  }
  if constexpr (sizeof(T) == 2) {
#pragma unroll
    for (unsigned u = 0; u < kVecItems; ++u)
      if (live[u]) take16<OP, T>(w[u], (c + u * stride) * V, key, index);
  } else {
    take_vectors<OP, T>(w, live, c, stride, key, index);
  }
}

// Takes (k, i) when its key beats the thread's: a thread visits its elements in increasing
// index order, so among equal keys the one it holds is already the first.
template <typename T, typename U>
__device__ __forceinline__ void take(U k, uint64_t i, U& key, uint64_t& index) {
  if (beats<T>(k, key, index)) {
    key = k;
    index = i;
  }
}

// A batch of kItems elements of in's n (element u at i + u * stride; when GUARD, the thread's
// last batch, those past n are not loaded), all loaded before any is compared.
template <int OP, typename T, bool GUARD, typename U>
__device__ __forceinline__ void take_elements(const T* in, uint64_t i, uint64_t stride, uint64_t n,
                                              U& key, uint64_t& index) {
  U k[kItems];
#pragma unroll
  for (unsigned u = 0; u < kItems; ++u)
    k[u] = !GUARD || i + u * stride < n ? arg_key<OP, T>(in[i + u * stride]) : (U)~(U)0;
#pragma unroll
  for (unsigned u = 0; u < kItems; ++u)
    if (!GUARD || i + u * stride < n) take<T>(k[u], i + u * stride, key, index);
}

// The value from its key, without a load after the selection; a float's NaN (key 0, which
// every NaN has) is read from the input, with its payload.
template <int OP, typename T, typename U>
__device__ __forceinline__ void put_arg(const T* in, U key, uint64_t index, T* value_out,
                                        uint64_t* index_out) {
  *value_out = Elem<T>::is_float && key == 0 ? in[index] : arg_value<OP, T>(key);
  *index_out = index;
}

template <int OP, typename T>
__global__ void __launch_bounds__(kBlock, ArgOccupancy<T>::blocks)
    arg_reduce_kernel(wk_status* st, uint32_t warp_size, const T* in, uint64_t n,
                      uint64_t* part_key, uint64_t* part_idx, unsigned* ticket, T* value_out,
                      uint64_t* index_out) {
  typedef ArgU<T> U;
  WK_SHARED(uint64_t, skey, kWarps);
  WK_SHARED(uint64_t, sidx, kWarps);
  WK_SHARED_VAR(unsigned, s_last);
  if (!width_ok(st, warp_size)) return;
  U key = (U)~(U)0;
  uint64_t index = kNone64;
  const uint64_t stride = (uint64_t)gridDim.x * kBlock;
  const uint64_t tid = (uint64_t)blockIdx.x * kBlock + threadIdx.x;
  // An aligned input is read as 16-byte vectors of V elements, kVecItems issued before any is
  // compared (in the last batch only those before nv), the few past the last whole vector
  // element by element below, kItems at once. Either way a thread's indices only grow (vector
  // c + u * stride, element j within it, then the tail).
  uint64_t first = 0;
  if (((uintptr_t)in % sizeof(uint4)) == 0) {
    const unsigned V = sizeof(uint4) / sizeof(T);
    const uint64_t nv = n / V;
    const uint4* p = reinterpret_cast<const uint4*>(in);
    uint64_t c = tid;
    for (; c + (kVecItems - 1) * stride < nv; c += kVecItems * stride)
      take_batch<OP, T, false>(p, c, stride, nv, key, index);
    if (c < nv) take_batch<OP, T, true>(p, c, stride, nv, key, index);
    first = nv * V;
  }
  uint64_t i = first + tid;
  for (; i + (kItems - 1) * stride < n; i += kItems * stride)
    take_elements<OP, T, false>(in, i, stride, n, key, index);
  if (i < n) take_elements<OP, T, true>(in, i, stride, n, key, index);
  block_select(key, index, skey, sidx);
  const unsigned parts = gridDim.x;
  if (parts == 1) {
    if (threadIdx.x == 0) put_arg<OP>(in, key, index, value_out, index_out);
    return;
  }
  if (threadIdx.x == 0) {
    part_key[blockIdx.x] = (uint64_t)key;
    part_idx[blockIdx.x] = index;
    arch::fence_device();
    const unsigned old = atomicAdd(ticket, 1u);
    s_last = old == parts - 1;
    // Every block has arrived: the ticket is free for the next launch.
    if (s_last) atomicExch(ticket, 0u);
  }
  __syncthreads();
  if (!s_last) return;
  arch::fence_device();
  // The partials other blocks wrote during this launch, read from L2 (volatile: never a stale
  // L1), kFinalLoads a thread loaded before any is compared (up to kMaxGrid of them).
  const volatile uint64_t* pk = part_key;
  const volatile uint64_t* pi = part_idx;
  key = (U)~(U)0;
  index = kNone64;
  const unsigned kFinalLoads = 4;
  for (unsigned p = threadIdx.x; p < parts; p += kFinalLoads * kBlock) {
    U k[kFinalLoads];
    uint64_t i[kFinalLoads];
#pragma unroll
    for (unsigned u = 0; u < kFinalLoads; ++u) {
      const bool live = p + u * kBlock < parts;
      k[u] = live ? (U)pk[p + u * kBlock] : (U)~(U)0;
      i[u] = live ? pi[p + u * kBlock] : kNone64;
    }
#pragma unroll
    for (unsigned u = 0; u < kFinalLoads; ++u) {
      if (arg_better(k[u], i[u], key, index)) {
        key = k[u];
        index = i[u];
      }
    }
  }
  block_select(key, index, skey, sidx);
  if (threadIdx.x == 0) put_arg<OP>(in, key, index, value_out, index_out);
}

template <int OP, typename T>
__global__ void segmented_arg_kernel(wk_status* st, uint32_t warp_size, const T* in, uint64_t n,
                                     const uint32_t* offsets, uint64_t seg_size, uint64_t count,
                                     uint32_t vector, T* values_out, uint32_t* indices_out) {
  typedef ArgU<T> U;
  if (!width_ok(st, warp_size)) return;
  const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t seg = t / vector;
  const unsigned j = (unsigned)(t % vector);
  U key = (U)~(U)0;
  uint32_t index = kNone32;
  if (seg < count) {
    uint64_t begin, end;
    if (offsets) {
      // Defence in depth, as segmented_reduce: an offset past the input is reported and
      // clamped to it.
      const uint64_t b = offsets[seg], e = offsets[seg + 1];
      if (j == 0 && (b > n || e > n)) report(st, WK_ERR_INDEX, (seg << 32) | (b > n ? b : e));
      begin = b < n ? b : n;
      end = e < n ? e : n;
    } else {
      begin = seg * seg_size;
      end = begin + seg_size < n ? begin + seg_size : n;
    }
    // Four loads in flight, then the four selections; the lane's indices only grow.
    const unsigned kBatch = 4;
    uint64_t k = begin + j;
    for (; k + (kBatch - 1) * (uint64_t)vector < end; k += kBatch * (uint64_t)vector) {
      U x[kBatch];
#pragma unroll
      for (unsigned u = 0; u < kBatch; ++u) x[u] = arg_key<OP, T>(in[k + u * (uint64_t)vector]);
#pragma unroll
      for (unsigned u = 0; u < kBatch; ++u) {
        const uint32_t at = (uint32_t)(k + u * (uint64_t)vector);
        if (arg_better(x[u], at, key, index)) {
          key = x[u];
          index = at;
        }
      }
    }
    for (; k < end; k += vector) {
      const U x = arg_key<OP, T>(in[k]);
      if (arg_better(x, (uint32_t)k, key, index)) {
        key = x;
        index = (uint32_t)k;
      }
    }
  }
  arg_bfly(WK_FULL_MASK, key, index, vector);
  if (seg < count && j == 0) {
    values_out[seg] =
        index == kNone32 ? from_acc<T>(Op<OP, typename Elem<T>::Acc>::identity()) : in[index];
    indices_out[seg] = index;
  }
}

// Launched in full blocks; lanes past n take no part (a short last segment selects among the
// lanes it has) and write nothing.
template <int OP, typename T>
__global__ void warp_arg_kernel(wk_status* st, uint32_t warp_size, const T* vals, uint64_t n,
                                uint32_t width, T* values_out, uint32_t* lanes_out) {
  if (!width_ok(st, warp_size)) return;
  const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = t < n;
  const T v = live ? vals[t] : T();
  const unsigned at = arg_lane<OP, T>(WK_FULL_MASK, v, live, width);
  const T r = shfl_idx(WK_FULL_MASK, v, at, width);
  if (live) {
    values_out[t] = r;
    lanes_out[t] = at;
  }
}

}  // namespace

// The scratch is the device reduce's (launchers.def): its ticket in the first 256 bytes, which
// every device reduce call keeps as tickets of its own (any reduce with partials has at least
// 256 bytes of them) and leaves zero; the partials packed at the end, where a reduce keeps its
// partials. They never reach a reduce's tickets: past 256 bytes of tickets (more than 64
// groups, over 2^18 tiles) a reduce's partials alone are at least 1 MiB, more than these ever
// are, so the scratch that holds that reduce holds its tickets before these partials.
static_assert(2 * kMaxGrid * sizeof(uint64_t) <= ((uint64_t)64 * 4096 * sizeof(float)),
              "arg partials must stay within a large reduce's partials");
const uint64_t kArgTicketBytes = 256;

uint64_t arg_reduce_scratch(uint64_t n) {
  if (n == 0) return 0;
  return kArgTicketBytes + 2 * round_up((uint64_t)partial_blocks(n) * sizeof(uint64_t));
}

int arg_reduce_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                      uint32_t op, const void* in, uint64_t n, void* scratch,
                      uint64_t scratch_bytes, void* value_out, uint64_t* index_out) {
  if (n == 0 || !value_out || !index_out) return WK_ERR_ARG;
  if (scratch_bytes < arg_reduce_scratch(n)) return WK_ERR_SCRATCH;
  // The end rounded down to 256 bytes keeps the partials aligned in any scratch the size check
  // passed (arg_reduce_scratch is a multiple of 256).
  const uint64_t half = round_up((uint64_t)partial_blocks(n) * sizeof(uint64_t));
  char* end = (char*)scratch + scratch_bytes / 256 * 256;
  unsigned* ticket = (unsigned*)scratch;
  uint64_t* part_key = (uint64_t*)(end - 2 * half);
  uint64_t* part_idx = (uint64_t*)(end - half);
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    const unsigned grid = arg_grid((const T*)in, n);
    return with_arg_op(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), arg_reduce_kernel<decltype(ot)::value, T>)(
          st, warp_size, (const T*)in, n, part_key, part_idx, ticket, (T*)value_out, index_out);
      return host::launch_error();
    });
  });
}

int segmented_arg_reduce_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                                uint32_t op, const void* in, uint64_t n, const uint32_t* offsets,
                                uint64_t seg_size, uint64_t count, uint32_t vector,
                                void* values_out, uint32_t* indices_out) {
  unsigned grid;
  if (!pow2_upto(vector, WK_MAX_VECTOR) || (!offsets && seg_size == 0) || n > kNone32 ||
      count > (~0ull) / vector || !grid_for(count * vector, kBlock, &grid))
    return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_arg_op(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), segmented_arg_kernel<decltype(ot)::value, T>)(
          st, warp_size, (const T*)in, n, offsets, seg_size, count, vector, (T*)values_out,
          indices_out);
      return host::launch_error();
    });
  });
}

int warp_arg_reduce_launch(void* stream, wk_status* st, uint32_t warp_size, uint32_t dtype,
                           uint32_t op, const void* vals, uint64_t n, uint32_t width,
                           void* values_out, uint32_t* lanes_out) {
  unsigned grid;
  if (!pow2_upto(width, warp_size) || !grid_for(n, kBlock, &grid)) return WK_ERR_ARG;
  return with_dtype_io(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_arg_op(op, [&](auto ot) {
      WK_LAUNCH(grid, kBlock, 0, as_stream(stream), warp_arg_kernel<decltype(ot)::value, T>)(
          st, warp_size, (const T*)vals, n, width, (T*)values_out, lanes_out);
      return host::launch_error();
    });
  });
}

}  // namespace WK_NS
