// peer_all_reduce: the reproducible allreduce (docs/SEMANTICS.md "dist_all_reduce") of the GPUs
// of one node in one kernel a rank, each reading the others' buffers directly (peer access),
// where wavekit-dist otherwise makes an NCCL all-to-all, a fold (reduce_rows) and an NCCL
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
//
// Ranks in separate processes cannot read each other's own buffers, only a staging buffer each
// exported once (CUDA IPC): then send[k] and recv[k] are rank k's staging buffer, and the
// kernel stages its own send first (block b copies the parts its namesakes will read), folds
// its own values from its own send, and writes its folded chunk both to its own recv and to its
// staging buffer, where the others copy it from: no copy before or after the kernel, and no
// last rendezvous (consecutive calls alternate two staging buffers).
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
  // What the peers read: the sends folded, and the recvs' folded chunks copied (two-shot).
  const char* send[WK_MAX_PEERS];
  char* recv[WK_MAX_PEERS];
  uint64_t* flags[WK_MAX_PEERS];
  // This rank's own buffers: send[rank] and recv[rank] unless staged.
  const char* own_send;
  char* own_recv;
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

// This block's flag `value` raised on every rank, without waiting for theirs.
template <typename S>
__device__ void announce(const PeerArgs& a, unsigned ranks, unsigned rank, uint64_t value,
                         S& late) {
  __syncthreads();
  const unsigned k = threadIdx.x;
  if (k < ranks && late[0] == 0)
    arch::store_release_system(a.flags[k] + blockIdx.x * WK_MAX_PEERS + rank, value);
}

// The rendezvous `value` of this block with its namesakes: thread k < ranks raises this block's
// flag for this rank on rank k, then waits for rank k's flag here. false (for the whole block)
// when a peer did not come within the timeout; the status word says so.
template <typename S>
__device__ bool rendezvous(const PeerArgs& a, unsigned ranks, unsigned rank, uint64_t value,
                           uint64_t timeout_ns, wk_status* st, S& late) {
  announce(a, ranks, rank, value, late);
  const unsigned k = threadIdx.x;
  if (k < ranks && late[0] == 0) {
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

// own_recv[u] = bfly over k of send[k][u] (this rank's own from own_send), for units u of W
// elements in [lo, hi); also into recv[rank] when the peers copy it from there (`publish`).
template <int OP, typename T, unsigned Q, unsigned W>
__device__ void fold_units(const PeerArgs& a, unsigned ranks, unsigned rank, uint64_t lo,
                           uint64_t hi, bool publish) {
  for (uint64_t u = lo + threadIdx.x; u < hi; u += blockDim.x) {
    const uint64_t off = u * W * sizeof(T);
    Pack<T, W> v[Q];
#pragma unroll
    for (unsigned k = 0; k < Q; ++k)
      if (k < ranks) v[k] = load_pack<T, W>((k == rank ? a.own_send : a.send[k]) + off);
    Pack<T, W> out;
#pragma unroll
    for (unsigned e = 0; e < W; ++e) {
      T col[Q];
#pragma unroll
      for (unsigned k = 0; k < Q; ++k) col[k] = k < ranks ? v[k].v[e] : Op<OP, T>::identity();
      out.v[e] = bfly_fold<OP, T, Q>(col, ranks);
    }
    store_pack<T, W>(a.own_recv + off, out);
    if (publish) store_pack<T, W>(a.recv[rank] + off, out);
  }
}

// to[u] = from[u] for units u of W elements in [lo, hi).
template <typename T, unsigned W>
__device__ void copy_units(char* to, const char* from, uint64_t lo, uint64_t hi) {
  for (uint64_t u = lo + threadIdx.x; u < hi; u += blockDim.x) {
    const uint64_t off = u * W * sizeof(T);
    store_pack<T, W>(to + off, load_pack<T, W>(from + off));
  }
}

// Block b's share of [lo, hi) out of `blocks` equal shares.
__device__ __forceinline__ uint64_t share(uint64_t lo, uint64_t hi, unsigned b, unsigned blocks) {
  return lo + (hi - lo) * b / blocks;
}

// Chunk k of `units` units split into `ranks` equal chunks; k = ranks: all of them (one-shot).
struct Span {
  uint64_t lo, hi;
};
__device__ __forceinline__ Span chunk(uint64_t units, unsigned k, unsigned ranks) {
  if (k == ranks) return Span{0, units};
  return Span{units * k / ranks, units * (k + 1) / ranks};
}

// Stages block b's share of every part its namesakes read from this rank's send: chunk k for
// every k != rank (two-shot), or all of it (one-shot: k = ranks). The tail goes with the last
// chunk.
template <typename T, unsigned V>
__device__ void stage_send(const PeerArgs& a, unsigned ranks, unsigned rank, uint64_t n,
                           bool one_shot, bool tail_here) {
  char* to = (char*)a.send[rank];
  const uint64_t units = n / V;
  const unsigned b = blockIdx.x, blocks = gridDim.x;
  for (unsigned k = one_shot ? ranks : 0; k <= ranks; ++k) {
    if (k == rank || (!one_shot && k == ranks)) continue;
    const Span c = chunk(units, k, ranks);
    copy_units<T, V>(to, a.own_send, share(c.lo, c.hi, b, blocks),
                     share(c.lo, c.hi, b + 1, blocks));
  }
  if (tail_here && (one_shot || rank != ranks - 1)) copy_units<T, 1>(to, a.own_send, units * V, n);
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
  const bool staged = a.own_send != a.send[rank];
  if (staged) stage_send<T, V>(a, ranks, rank, n, one_shot != 0, tail_here);
  if (!rendezvous(a, ranks, rank, base + 1, timeout_ns, st, late)) return;
  if (one_shot) {
    fold_units<OP, T, Q, V>(a, ranks, rank, share(0, units, b, blocks),
                            share(0, units, b + 1, blocks), false);
    if (tail_here) fold_units<OP, T, Q, 1>(a, ranks, rank, units * V, n, false);
  } else {
    const bool publish = a.own_recv != a.recv[rank];
    const Span c = chunk(units, rank, ranks);
    fold_units<OP, T, Q, V>(a, ranks, rank, share(c.lo, c.hi, b, blocks),
                            share(c.lo, c.hi, b + 1, blocks), publish);
    if (tail_here && rank == ranks - 1)
      fold_units<OP, T, Q, 1>(a, ranks, rank, units * V, n, publish);
    if (!rendezvous(a, ranks, rank, base + 2, timeout_ns, st, late)) return;
    for (unsigned k = 0; k < ranks; ++k) {
      if (k == rank) continue;
      const Span ck = chunk(units, k, ranks);
      copy_units<T, V>(a.own_recv, a.recv[k], share(ck.lo, ck.hi, b, blocks),
                       share(ck.lo, ck.hi, b + 1, blocks));
      if (tail_here && k == ranks - 1) copy_units<T, 1>(a.own_recv, a.recv[k], units * V, n);
    }
  }
  // Staged, nothing of this rank's is read after the last rendezvous above but its staging
  // buffer, which the caller writes again only two calls later (alternating two of them): a
  // rank there has passed the next call's first rendezvous, which every peer reaches after
  // this kernel. So only the callers' own buffers need the wait for the slowest peer; staged,
  // the block only says it is done reading (what a rank about to free its buffers waits for).
  if (staged)
    announce(a, ranks, rank, base + 3, late);
  else
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
  a.own_send = (const char*)(uintptr_t)peers[3 * ranks];
  a.own_recv = (char*)(uintptr_t)peers[3 * ranks + 1];
  if (!a.own_send || !a.own_recv) return WK_ERR_ARG;
  // Staged: send[rank] and recv[rank] are one staging buffer, distinct from both own buffers.
  if ((a.own_send != a.send[rank]) != (a.own_recv != a.recv[rank])) return WK_ERR_ARG;
  aligned = aligned && (peers[3 * ranks] % 16 == 0) && (peers[3 * ranks + 1] % 16 == 0);
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
