// peer_all_reduce: the reproducible allreduce (docs/SEMANTICS.md "dist_all_reduce") of the GPUs
// of one node in one kernel a rank, each reading the others' buffers directly (peer access),
// where wavekit-dist otherwise makes an NCCL all-to-all, a fold (bfly_rows) and an NCCL
// allgather. Same bits: element i is bfly_fold over the ranks' send[i] in rank order.
//
// Every rank runs the same grid (its size depends on n alone) and block b of every rank works
// on the same element ranges, so block b only meets its namesakes on the other GPUs: at a
// rendezvous it raises a flag word on each peer and waits for theirs. Each waits only for
// blocks of the same index, which are resident once the grid fits the GPU at once (at most
// kPeerBlocks blocks of kPeerThreads, a fraction of any GPU with peer access).
//
// Two-shot: rank r folds chunk r of every rank's send into its own recv, rendezvous, copies
// chunk k of rank k's recv for every other k, rendezvous (no rank leaves, and lets its stream
// reuse the buffers, while a peer still reads them). One-shot (small n, fewer rendezvous): rank
// r folds all of it from every send, rendezvous. The first rendezvous of either is where every
// peer's send is ready: each rank's kernel starts after the work queued before it.
#include "bfly_fold.h"

namespace WK_NS {
using namespace prims;

namespace {

const unsigned kPeerThreads = 512;
// One flag word per block and rank on each GPU.
const unsigned kPeerBlocks = WK_PEER_FLAG_WORDS / WK_MAX_PEERS;
// Units (16-byte packs) a block takes per thread before the grid grows by another block.
const unsigned kUnitsPerThread = 2;

struct PeerArgs {
  const char* send[WK_MAX_PEERS];
  char* recv[WK_MAX_PEERS];
  uint64_t* flags[WK_MAX_PEERS];
};

template <typename T, unsigned W> struct Pack {
  T v[W];
};

// W elements at p, written by another GPU before a rendezvous: one 16-byte load, or a volatile
// load of one element (the tail, or buffers not 16-byte aligned).
template <typename T, unsigned W>
__device__ __forceinline__ Pack<T, W> load_pack(const char* p) {
  Pack<T, W> out;
  if (W * sizeof(T) == 16) {
    const uint4 u = arch::load_peer16(p);
    __builtin_memcpy(&out, &u, sizeof(u));
  } else {
    typedef typename Elem<T>::U U;
    out.v[0] = from_bits<T>(*(const volatile U*)p);
  }
  return out;
}

template <typename T, unsigned W>
__device__ __forceinline__ void store_pack(char* p, const Pack<T, W>& v) {
  if (W * sizeof(T) == 16) {
    uint4 u;
    __builtin_memcpy(&u, &v, sizeof(u));
    *(uint4*)p = u;
  } else {
    *(T*)p = v.v[0];
  }
}

// The rendezvous `value` of this block with its namesakes: thread k < ranks raises this block's
// flag for this rank on rank k, then waits for rank k's flag here. false (for the whole block)
// when a peer did not come within the timeout; the status word says so.
template <typename S>
__device__ bool rendezvous(const PeerArgs& a, unsigned ranks, unsigned rank, uint64_t value,
                           uint64_t timeout_ns, wk_status* st, S& late) {
  __syncthreads();
  const unsigned k = threadIdx.x;
  if (k < ranks && late[0] == 0) {
    arch::store_release_system(a.flags[k] + blockIdx.x * WK_MAX_PEERS + rank, value);
    const uint64_t* mine = a.flags[rank] + blockIdx.x * WK_MAX_PEERS + k;
    const uint64_t t0 = arch::clock_ns();
    while (arch::load_acquire_system(mine) < value) {
      if (arch::clock_ns() - t0 > timeout_ns) {
        report(st, WK_ERR_TIMEOUT, WK_DETAIL_NONE);
        late[0] = 1;
        break;
      }
    }
  }
  __syncthreads();
  return late[0] == 0;
}

// recv[rank][u] = bfly over k of send[k][u], for units u of W elements in [lo, hi).
template <int OP, typename T, unsigned Q, unsigned W>
__device__ void fold_units(const PeerArgs& a, unsigned ranks, unsigned rank, uint64_t lo,
                           uint64_t hi) {
  for (uint64_t u = lo + threadIdx.x; u < hi; u += blockDim.x) {
    const uint64_t off = u * W * sizeof(T);
    Pack<T, W> v[Q];
#pragma unroll
    for (unsigned k = 0; k < Q; ++k)
      if (k < ranks) v[k] = load_pack<T, W>(a.send[k] + off);
    Pack<T, W> out;
#pragma unroll
    for (unsigned e = 0; e < W; ++e) {
      T col[Q];
#pragma unroll
      for (unsigned k = 0; k < Q; ++k) col[k] = k < ranks ? v[k].v[e] : Op<OP, T>::identity();
      out.v[e] = bfly_fold<OP, T, Q>(col, ranks);
    }
    store_pack<T, W>(a.recv[rank] + off, out);
  }
}

// recv[rank][u] = recv[from][u] for units u of W elements in [lo, hi).
template <typename T, unsigned W>
__device__ void copy_units(const PeerArgs& a, unsigned rank, unsigned from, uint64_t lo,
                           uint64_t hi) {
  for (uint64_t u = lo + threadIdx.x; u < hi; u += blockDim.x) {
    const uint64_t off = u * W * sizeof(T);
    store_pack<T, W>(a.recv[rank] + off, load_pack<T, W>(a.recv[from] + off));
  }
}

// Block b's share of [lo, hi) out of `blocks` equal shares.
__device__ __forceinline__ uint64_t share(uint64_t lo, uint64_t hi, unsigned b, unsigned blocks) {
  return lo + (hi - lo) * b / blocks;
}

// V elements a unit (16 bytes, or 1 when a buffer is not 16-byte aligned); the n % V elements
// past the units belong to the last chunk's last block.
template <int OP, typename T, unsigned Q, unsigned V>
__global__ void peer_all_reduce_kernel(PeerArgs a, wk_status* st, unsigned ranks, unsigned rank,
                                       uint64_t n, uint64_t epoch, unsigned one_shot,
                                       uint64_t timeout_ns) {
  WK_SHARED(int, late, 1);
  if (threadIdx.x == 0) late[0] = 0;
  const uint64_t base = epoch * 3;
  const unsigned b = blockIdx.x, blocks = gridDim.x;
  const uint64_t units = n / V;
  const bool tail_here = b == blocks - 1 && units * V < n;
  if (!rendezvous(a, ranks, rank, base + 1, timeout_ns, st, late)) return;
  if (one_shot) {
    fold_units<OP, T, Q, V>(a, ranks, rank, share(0, units, b, blocks),
                            share(0, units, b + 1, blocks));
    if (tail_here) fold_units<OP, T, Q, 1>(a, ranks, rank, units * V, n);
  } else {
    const uint64_t lo = units * rank / ranks, hi = units * (rank + 1) / ranks;
    fold_units<OP, T, Q, V>(a, ranks, rank, share(lo, hi, b, blocks), share(lo, hi, b + 1, blocks));
    if (tail_here && rank == ranks - 1) fold_units<OP, T, Q, 1>(a, ranks, rank, units * V, n);
    if (!rendezvous(a, ranks, rank, base + 2, timeout_ns, st, late)) return;
    for (unsigned k = 0; k < ranks; ++k) {
      if (k == rank) continue;
      const uint64_t klo = units * k / ranks, khi = units * (k + 1) / ranks;
      copy_units<T, V>(a, rank, k, share(klo, khi, b, blocks), share(klo, khi, b + 1, blocks));
      if (tail_here && k == ranks - 1) copy_units<T, 1>(a, rank, k, units * V, n);
    }
  }
  rendezvous(a, ranks, rank, base + 3, timeout_ns, st, late);
}

template <int OP, typename T, unsigned Q>
int launch_q(host::stream_t s, wk_status* st, const PeerArgs& a, unsigned ranks, unsigned rank,
             uint64_t n, uint64_t epoch, unsigned one_shot, uint64_t timeout_ns, bool aligned) {
  const unsigned V = 16 / sizeof(T);
  const uint64_t per_block = (uint64_t)kPeerThreads * kUnitsPerThread;
  const uint64_t want = (n / V + per_block - 1) / per_block;
  const unsigned grid = (unsigned)(want < 1 ? 1 : want < kPeerBlocks ? want : kPeerBlocks);
  if (aligned)
    WK_LAUNCH(grid, kPeerThreads, 0, s, peer_all_reduce_kernel<OP, T, Q, V>)
    (a, st, ranks, rank, n, epoch, one_shot, timeout_ns);
  else
    WK_LAUNCH(grid, kPeerThreads, 0, s, peer_all_reduce_kernel<OP, T, Q, 1>)
    (a, st, ranks, rank, n, epoch, one_shot, timeout_ns);
  return host::launch_error();
}

}  // namespace

int peer_all_reduce_launch(void* stream, wk_status* st, uint32_t dtype, uint32_t op,
                           const uint64_t* peers, uint32_t ranks, uint32_t rank, uint64_t n,
                           uint64_t epoch, uint32_t one_shot, uint64_t timeout_ns) {
  if (ranks == 0 || ranks > WK_MAX_PEERS || rank >= ranks || epoch == 0 || !peers)
    return WK_ERR_ARG;
  if (n == 0) return WK_OK;
  PeerArgs a = {};
  bool aligned = true;
  for (unsigned k = 0; k < ranks; ++k) {
    a.send[k] = (const char*)(uintptr_t)peers[k];
    a.recv[k] = (char*)(uintptr_t)peers[ranks + k];
    a.flags[k] = (uint64_t*)(uintptr_t)peers[2 * ranks + k];
    if (!a.send[k] || !a.recv[k] || !a.flags[k]) return WK_ERR_ARG;
    aligned = aligned && (peers[k] % 16 == 0) && (peers[ranks + k] % 16 == 0);
  }
  const host::stream_t s = as_stream(stream);
  return with_dtype(dtype, [&](auto tt) {
    typedef typename decltype(tt)::type T;
    return with_op<T>(op, [&](auto ot) {
      constexpr int OP = decltype(ot)::value;
      if (ranks <= 2)
        return launch_q<OP, T, 2>(s, st, a, ranks, rank, n, epoch, one_shot, timeout_ns, aligned);
      if (ranks <= 4)
        return launch_q<OP, T, 4>(s, st, a, ranks, rank, n, epoch, one_shot, timeout_ns, aligned);
      return launch_q<OP, T, WK_MAX_PEERS>(s, st, a, ranks, rank, n, epoch, one_shot, timeout_ns,
                                           aligned);
    });
  });
}

}  // namespace WK_NS
