// cooperative_groups on the executor: the block and its tiles (thread_block_tile<N>, the
// dynamic tiled_partition), coalesced_threads, labeled_partition and binary_partition, and
// reduce. A tile's operations are the warp's
// over the tile's lanes (its mask) at the tile's width, so a tile of 32 is right on 64 lanes
// and a tile wider than the warp is CUDA's multi-warp tile (its sync the block's barrier, its
// collectives through the block's scratch). Every member takes its caller's line, as the warp
// intrinsics do. The grid group gives its ranks and sizes, and its sync in a cooperative launch
// (`wavekit check --cooperative`); multi-grid groups are not modelled.
#pragma once

#include <type_traits>

namespace cooperative_groups {

namespace details {
inline unsigned block_rank() {
  const ::wk_simt::Dim3 t = ::wk_simt::thread_idx(), b = ::wk_simt::block_dim();
  return (t.z * b.y + t.y) * b.x + t.x;
}
inline unsigned block_size() {
  const ::wk_simt::Dim3 b = ::wk_simt::block_dim();
  return b.x * b.y * b.z;
}
}  // namespace details

class thread_group {
 public:
  // The lanes of the caller's warp in the group, its size and its width (a tile's size), and
  // the caller's rank in it. A block: no mask (its sync is __syncthreads).
  thread_group(bool block, wk_lanemask_t mask, unsigned size, unsigned rank)
      : block_(block), mask_(mask), size_(size), rank_(rank) {}
  unsigned size() const { return size_; }
  unsigned num_threads() const { return size_; }
  unsigned thread_rank() const { return rank_; }
  // The caller's warp's lanes in the group (not CUDA's: what the partitions below split).
  wk_lanemask_t wk_lanes() const { return mask_; }
  void sync(WK_PLAIN_AT) const {
    if (block_)
      ::wk_simt::sync_block(WK_PLAIN_SITE);
    else
      __syncwarp(mask_, wk_file, wk_line);
  }

 protected:
  bool block_;
  wk_lanemask_t mask_;
  unsigned size_, rank_;
};

class thread_block : public thread_group {
 public:
  thread_block() : thread_group(true, 0, details::block_size(), details::block_rank()) {}
  dim3 group_index() const { return dim3(::wk_simt::block_idx()); }
  dim3 thread_index() const { return dim3(::wk_simt::thread_idx()); }
  dim3 group_dim() const { return dim3(::wk_simt::block_dim()); }
  dim3 dim_threads() const { return group_dim(); }
};

inline thread_block this_thread_block() { return thread_block(); }

namespace details {
template <class T>
struct always_false : std::false_type {};
inline unsigned long long grid_block_rank() {
  const ::wk_simt::Dim3 b = ::wk_simt::block_idx(), g = ::wk_simt::grid_dim();
  return ((unsigned long long)b.z * g.y + b.y) * g.x + b.x;
}
inline unsigned long long grid_blocks() {
  const ::wk_simt::Dim3 g = ::wk_simt::grid_dim();
  return (unsigned long long)g.x * g.y * g.z;
}
}  // namespace details

// The grid of a launch: its ranks and shapes are the launch's. grid.sync() is the barrier of a
// cooperative launch, which the executor models when the file is built for one
// (WK_PLAIN_COOPERATIVE, `wavekit check --cooperative`): every block resident at once, the
// barrier across all their threads. Built otherwise, the rewriter refuses a call it finds in
// code the checked kernel reaches; one it cannot see (a call through a macro or a pointer)
// stops the build here, at the caller's line.
class grid_group {
 public:
  unsigned long long thread_rank() const {
    return details::grid_block_rank() * details::block_size() + details::block_rank();
  }
  unsigned long long size() const { return details::grid_blocks() * details::block_size(); }
  unsigned long long num_threads() const { return size(); }
  unsigned long long block_rank() const { return details::grid_block_rank(); }
  unsigned long long num_blocks() const { return details::grid_blocks(); }
  dim3 group_dim() const { return dim3(::wk_simt::grid_dim()); }
  dim3 dim_blocks() const { return dim3(::wk_simt::grid_dim()); }
  dim3 block_index() const { return dim3(::wk_simt::block_idx()); }
  // Whether the grid can synchronise: a cooperative launch.
  bool is_valid() const { return ::wk_simt::cooperative_launch(); }
#ifdef WK_PLAIN_COOPERATIVE
  void sync(WK_PLAIN_AT) const { ::wk_simt::sync_grid(WK_PLAIN_SITE); }
#else
  template <class T = void>
  void sync(const char* = nullptr, int = 0) const {
    static_assert(details::always_false<T>::value,
                  "grid.sync() is the barrier of a cooperative launch "
                  "(cudaLaunchCooperativeKernel): pass --cooperative to wavekit check");
  }
#endif
};

inline grid_group this_grid() { return grid_group(); }

// Several devices' grids: not modelled (the rewriter refuses them where a kernel reaches them).
class multi_grid_group;

// CUDA's scratch for tiles wider than a warp (needed before sm_80): the executor's tiles keep
// theirs in the block's (details::tile_scratch).
template <unsigned MaxBlockSize, unsigned TileCommunicationSize = 8, unsigned MaxTileSize = 32>
struct block_tile_memory {
  unsigned char scratch[1];
};
template <unsigned N, unsigned C, unsigned M>
inline thread_block this_thread_block(block_tile_memory<N, C, M>&) {
  return thread_block();
}

namespace details {
// The lanes of a tile of `n` threads holding the caller: n consecutive lanes of its warp, or
// the whole warp for a tile wider than it (whose shuffles then read lanes that do not exist).
// In a block that is not a whole number of warps, the tile holds the lanes that exist.
inline wk_lanemask_t tile_mask(unsigned n) {
  const unsigned lane = ::wk_simt::lane_id();
  const unsigned in_warp = block_size() - (block_rank() - lane);
  const wk_lanemask_t exist =
      in_warp >= WK_WARP_SIZE ? WK_FULL_MASK : (wk_lanemask_t)((1ull << in_warp) - 1);
  if (n >= WK_WARP_SIZE) return exist;
  const unsigned base = lane & ~(n - 1);
  return (wk_lanemask_t)(((1ull << n) - 1) << base) & exist;
}
}  // namespace details

namespace details {
// The block's scratch for the collectives of tiles wider than the warp: a slot of 8 bytes per
// thread (1024 at most). The executor's, untracked: the block barriers around each use order
// it, as CUDA's block_tile_memory is ordered by the tile's barriers.
WK_SIMT_INDIVISIBLE inline uint64_t* tile_scratch() {
  static const char key = 0;
  return static_cast<uint64_t*>(
      ::wk_simt::shared_raw(&key, "cooperative_groups tile scratch", sizeof(uint64_t), 1024));
}

// The collectives of a tile of `n` threads wider than the warp (CUDA's multi-warp tiles):
// each thread puts its value in its slot, a barrier, the result read from its tile's slots, a
// barrier before the slots are used again. The barriers are the block's, which every tile of
// the block reaches together when they run the same code (a tile's sync is the block's). The
// slots are read here, uninstrumented, and handed to `step` by value.
enum class Span { Tile, ToSelf, BeforeSelf };
template <class Step>
WK_SIMT_INDIVISIBLE inline uint64_t multi_warp(unsigned n, uint64_t v, Span span, Step step,
                                               ::wk_simt::Site s) {
  uint64_t* slots = tile_scratch();
  const unsigned r = block_rank(), rank = r % n;
  ::wk_simt::sync_block(s);
  slots[r] = v;
  ::wk_simt::sync_block(s);
  const uint64_t* t = slots + (r - rank);
  const unsigned end = span == Span::Tile ? n : span == Span::ToSelf ? rank + 1 : rank;
  uint64_t out = 0;
  for (unsigned i = 0; i < end; ++i) out = i == 0 ? t[0] : step(out, t[i]);
  ::wk_simt::sync_block(s);
  return out;
}
WK_SIMT_INDIVISIBLE inline uint64_t multi_warp_pick(unsigned n, uint64_t v, unsigned from,
                                                    ::wk_simt::Site s) {
  uint64_t* slots = tile_scratch();
  const unsigned r = block_rank();
  ::wk_simt::sync_block(s);
  slots[r] = v;
  ::wk_simt::sync_block(s);
  const uint64_t out = slots[r - r % n + from % n];
  ::wk_simt::sync_block(s);
  return out;
}
}  // namespace details

// A tile of N threads (a power of two), as tiled_partition<N> makes it. A tile no wider than
// the warp is the warp's lanes (its mask) and its collectives the warp's at width N. A wider
// one (64 to 1024 threads, CUDA's multi-warp tiles, legal for a block of any warp width)
// spans several warps: its sync is the block's barrier, and shfl, any, all, cg::reduce and
// cg::inclusive_scan/exclusive_scan (what CUDA offers such a tile, on values of at most 8
// bytes) go through the block's scratch between barriers. Its shfl_up, shfl_down, shfl_xor,
// ballot and match_* are CUDA's for tiles of at most 32 threads only: here they are the
// warp's at width N, which is reported as wider than the warp.
template <unsigned N>
class thread_block_tile : public thread_group {
  static_assert(N >= 1 && (N & (N - 1)) == 0 && N <= 1024,
                "a tile's size is a power of two, at most 1024");

 public:
  static constexpr bool multi_warp = N > WK_WARP_SIZE;

  // A multi-warp tile syncs as the block does (thread_group's sync), also once converted to a
  // thread_group.
  thread_block_tile()
      : thread_group(multi_warp, details::tile_mask(N), N, details::block_rank() % N) {}
  static constexpr unsigned size() { return N; }
  static constexpr unsigned num_threads() { return N; }
  unsigned meta_group_rank() const { return details::block_rank() / N; }
  unsigned meta_group_size() const { return (details::block_size() + N - 1) / N; }

  template <class T>
  T shfl(T v, int src, WK_PLAIN_AT) const {
    if constexpr (multi_warp) {
      static_assert(sizeof(T) <= 8,
                    "collectives of tiles wider than 32 threads take values of at most 8 bytes");
      return ::wk_plain::from_bits<T>(
          details::multi_warp_pick(N, ::wk_plain::bits_of(v), (unsigned)src, WK_PLAIN_SITE));
    } else {
      return ::wk_plain::shfl(::wk_simt::Op::ShflIdx, mask_, v, (unsigned)src, N, WK_PLAIN_SITE);
    }
  }
  template <class T>
  T shfl_up(T v, unsigned d, WK_PLAIN_AT) const {
    return ::wk_plain::shfl(::wk_simt::Op::ShflUp, mask_, v, d, N, WK_PLAIN_SITE);
  }
  template <class T>
  T shfl_down(T v, unsigned d, WK_PLAIN_AT) const {
    return ::wk_plain::shfl(::wk_simt::Op::ShflDown, mask_, v, d, N, WK_PLAIN_SITE);
  }
  template <class T>
  T shfl_xor(T v, int m, WK_PLAIN_AT) const {
    return ::wk_plain::shfl(::wk_simt::Op::ShflXor, mask_, v, (unsigned)m, N, WK_PLAIN_SITE);
  }
  int any(int p, WK_PLAIN_AT) const {
    if (!multi_warp) return __any_sync(mask_, p, wk_file, wk_line);
    return (int)details::multi_warp(
        N, p != 0, details::Span::Tile, [](uint64_t a, uint64_t b) { return a | b; },
        WK_PLAIN_SITE);
  }
  int all(int p, WK_PLAIN_AT) const {
    if (!multi_warp) return __all_sync(mask_, p, wk_file, wk_line);
    return (int)details::multi_warp(
        N, p != 0, details::Span::Tile, [](uint64_t a, uint64_t b) { return a & b; },
        WK_PLAIN_SITE);
  }
  // The votes of the tile's threads, bit i for rank i.
  wk_lanemask_t ballot(int p, WK_PLAIN_AT) const {
    return (wk_lanemask_t)(__ballot_sync(mask_, p, wk_file, wk_line) >> base());
  }
  template <class T>
  wk_lanemask_t match_any(T v, WK_PLAIN_AT) const {
    return (wk_lanemask_t)(__match_any_sync(mask_, v, wk_file, wk_line) >> base());
  }
  template <class T>
  wk_lanemask_t match_all(T v, int& pred, WK_PLAIN_AT) const {
    return (wk_lanemask_t)(__match_all_sync(mask_, v, &pred, wk_file, wk_line) >> base());
  }

  // `op` folded in rank order over the values of the caller's tile (`span` of it): a
  // multi-warp tile's reduce and scans. An empty span (rank 0's exclusive scan) gives T().
  template <class T, class Op>
  T fold_ranks(T v, Op op, details::Span span, WK_PLAIN_AT) const {
    static_assert(sizeof(T) <= 8,
                  "collectives of tiles wider than 32 threads take values of at most 8 bytes");
    const uint64_t r = details::multi_warp(
        N, ::wk_plain::bits_of(v), span,
        [&op](uint64_t a, uint64_t b) {
          return ::wk_plain::bits_of(op(::wk_plain::from_bits<T>(a), ::wk_plain::from_bits<T>(b)));
        },
        WK_PLAIN_SITE);
    return span == details::Span::BeforeSelf && thread_rank() == 0 ? T()
                                                                   : ::wk_plain::from_bits<T>(r);
  }

 private:
  unsigned base() const { return N >= WK_WARP_SIZE ? 0 : ::wk_simt::lane_id() & ~(N - 1); }
};

template <unsigned N, class Parent>
inline thread_block_tile<N> tiled_partition(const Parent&) {
  return thread_block_tile<N>();
}

// The dynamic form: a thread_group of `n` threads (sync, size and thread_rank only, as CUDA's).
inline thread_group tiled_partition(const thread_group&, unsigned n) {
  return thread_group(false, details::tile_mask(n), n, details::block_rank() % n);
}

// The threads that reach the call together (__activemask()).
class coalesced_group : public thread_group {
 public:
  explicit coalesced_group(wk_lanemask_t m)
      : thread_group(false, m, (unsigned)__builtin_popcountll((uint64_t)m),
                     (unsigned)__builtin_popcountll((uint64_t)m &
                                                    ((1ull << ::wk_simt::lane_id()) - 1))) {}
  template <class T>
  T shfl(T v, int rank, WK_PLAIN_AT) const {
    uint64_t m = (uint64_t)mask_;
    for (int r = 0; r < rank && m; ++r) m &= m - 1;
    const unsigned src = m ? (unsigned)__builtin_ctzll(m) : 0;
    return ::wk_plain::shfl(::wk_simt::Op::ShflIdx, mask_, v, src, WK_WARP_SIZE, WK_PLAIN_SITE);
  }
  wk_lanemask_t ballot(int p, WK_PLAIN_AT) const {
    return __ballot_sync(mask_, p, wk_file, wk_line);
  }
  int any(int p, WK_PLAIN_AT) const { return __any_sync(mask_, p, wk_file, wk_line); }
  int all(int p, WK_PLAIN_AT) const { return __all_sync(mask_, p, wk_file, wk_line); }
};

inline coalesced_group coalesced_threads(WK_PLAIN_AT) {
  return coalesced_group(__activemask(wk_file, wk_line));
}

// labeled_partition and binary_partition: the threads of `g` (a coalesced group, or a tile of
// at most 32 threads) whose label is the caller's, as a coalesced group: the lanes that
// __match_any_sync finds among g's, every one of which must call it (as CUDA requires).
template <class Label>
inline coalesced_group labeled_partition(const coalesced_group& g, Label label, WK_PLAIN_AT) {
  return coalesced_group(__match_any_sync(g.wk_lanes(), label, wk_file, wk_line));
}
template <unsigned N, class Label>
inline coalesced_group labeled_partition(const thread_block_tile<N>& g, Label label,
                                         WK_PLAIN_AT) {
  static_assert(N <= 32, "CUDA partitions tiles of at most 32 threads");
  return coalesced_group(__match_any_sync(g.wk_lanes(), label, wk_file, wk_line));
}
inline coalesced_group binary_partition(const coalesced_group& g, bool pred, WK_PLAIN_AT) {
  return labeled_partition(g, (int)pred, wk_file, wk_line);
}
template <unsigned N>
inline coalesced_group binary_partition(const thread_block_tile<N>& g, bool pred, WK_PLAIN_AT) {
  return labeled_partition(g, (int)pred, wk_file, wk_line);
}

template <class G>
inline void sync(const G& g, WK_PLAIN_AT) {
  g.sync(wk_file, wk_line);
}

// cg::reduce's operators.
template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

// cg::reduce over a tile: a butterfly of shfl_xor, the result in every thread of the tile.
template <unsigned N, class T, class Op>
inline T reduce(const thread_block_tile<N>& g, T v, Op op, WK_PLAIN_AT) {
  if constexpr (thread_block_tile<N>::multi_warp)
    return g.fold_ranks(v, op, details::Span::Tile, wk_file, wk_line);
  for (unsigned m = N / 2; m > 0; m /= 2) v = op(v, g.shfl_xor(v, (int)m, wk_file, wk_line));
  return v;
}

// cg::reduce over a coalesced group (any lanes of the warp): every thread folds the group's
// values in rank order, each read with shfl by rank.
template <class T, class Op>
inline T reduce(const coalesced_group& g, T v, Op op, WK_PLAIN_AT) {
  T acc = g.shfl(v, 0, wk_file, wk_line);
  for (unsigned r = 1; r < g.size(); ++r) acc = op(acc, g.shfl(v, (int)r, wk_file, wk_line));
  return acc;
}

// cg::inclusive_scan / exclusive_scan over a tile (Kogge-Stone with shfl_up).
template <unsigned N, class T, class Op>
inline T inclusive_scan(const thread_block_tile<N>& g, T v, Op op, WK_PLAIN_AT) {
  if constexpr (thread_block_tile<N>::multi_warp)
    return g.fold_ranks(v, op, details::Span::ToSelf, wk_file, wk_line);
  for (unsigned d = 1; d < N; d *= 2) {
    const T up = g.shfl_up(v, d, wk_file, wk_line);
    if (g.thread_rank() >= d) v = op(v, up);
  }
  return v;
}
template <unsigned N, class T>
inline T inclusive_scan(const thread_block_tile<N>& g, T v, WK_PLAIN_AT) {
  return inclusive_scan(g, v, plus<T>(), wk_file, wk_line);
}
template <unsigned N, class T, class Op>
inline T exclusive_scan(const thread_block_tile<N>& g, T v, Op op, WK_PLAIN_AT) {
  if constexpr (thread_block_tile<N>::multi_warp)
    return g.fold_ranks(v, op, details::Span::BeforeSelf, wk_file, wk_line);
  const T inc = inclusive_scan(g, v, op, wk_file, wk_line);
  const T prev = g.shfl_up(inc, 1, wk_file, wk_line);
  return g.thread_rank() == 0 ? T() : prev;
}
template <unsigned N, class T>
inline T exclusive_scan(const thread_block_tile<N>& g, T v, WK_PLAIN_AT) {
  return exclusive_scan(g, v, plus<T>(), wk_file, wk_line);
}

}  // namespace cooperative_groups
