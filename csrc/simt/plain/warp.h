// Warp intrinsics of plain CUDA and HIP on the executor. Masks are `wk_lanemask_t`: CUDA's
// `unsigned` at 32 lanes, HIP's 64 bits at 64, so `0xffffffff` on 64 lanes names lanes 0..31,
// as on an AMD wave64. Every call passes its caller's file and line (default arguments, so a
// call written in the user's file names that line), which the executor's reports give.
//
// HIP's mask-free forms (`__shfl_down(v, d)`, `__ballot`, `__any`, `__all`) take the lanes that
// reach the call together: `__activemask()` then the *_sync call with it. Under the lockstep
// schedule (AMD's wave, pre-Volta warps) that is every lane of the branch; under the others it
// may be fewer, which is why CUDA 9 replaced them: the executor reports what it then reads.
#pragma once

#include <string.h>

#include <type_traits>

namespace wk_plain {

using ::wk_simt::Op;

template <class T>
inline uint64_t bits_of(const T& v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                "the executor's shuffles move values of at most 8 bytes");
  uint64_t b = 0;
  memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
inline T from_bits(uint64_t b) {
  T v;
  memcpy(&v, &b, sizeof(T));
  return v;
}
template <class T>
constexpr unsigned shfl_bytes() {
  return sizeof(T) <= 4 ? 4 : 8;
}

inline ::wk_simt::WarpResult op(Op o, wk_lanemask_t mask, uint64_t v, unsigned bytes,
                                unsigned arg, unsigned width, Site s) {
  return ::wk_simt::warp_op(o, (uint64_t)mask, v, bytes, arg, width, s);
}

// A shuffle of any trivially copyable value: one collective for a value of 8 bytes or fewer,
// else one per 8-byte piece (as CUDA moves a struct in 32-bit pieces), all at the caller's line.
template <class T>
inline T shfl(Op o, wk_lanemask_t mask, T v, unsigned arg, int width, Site s) {
  if constexpr (sizeof(T) <= sizeof(uint64_t)) {
    return from_bits<T>(op(o, mask, bits_of(v), shfl_bytes<T>(), arg, (unsigned)width, s).value);
  } else {
    static_assert(std::is_trivially_copyable<T>::value, "a shuffled value is copied bytewise");
    unsigned char bytes[sizeof(T)];
    memcpy(bytes, &v, sizeof(T));
    for (size_t at = 0; at < sizeof(T); at += sizeof(uint64_t)) {
      const size_t n = sizeof(T) - at < sizeof(uint64_t) ? sizeof(T) - at : sizeof(uint64_t);
      uint64_t piece = 0;
      memcpy(&piece, bytes + at, n);
      piece = op(o, mask, piece, n <= sizeof(uint32_t) ? sizeof(uint32_t) : sizeof(uint64_t), arg,
                 (unsigned)width, s)
                  .value;
      memcpy(bytes + at, &piece, n);
    }
    T r;
    memcpy(&r, bytes, sizeof(T));
    return r;
  }
}

inline wk_lanemask_t active(Site s) {
  return (wk_lanemask_t)op(Op::ActiveMask, 0, 0, 0, 0, 0, s).value;
}

}  // namespace wk_plain

// ---- CUDA 9 and HIP *_sync ----
template <class T>
inline T __shfl_sync(wk_lanemask_t mask, T v, int src, int width = warpSize, WK_PLAIN_AT) {
  return ::wk_plain::shfl(::wk_simt::Op::ShflIdx, mask, v, (unsigned)src, width, WK_PLAIN_SITE);
}
template <class T>
inline T __shfl_up_sync(wk_lanemask_t mask, T v, unsigned d, int width = warpSize, WK_PLAIN_AT) {
  return ::wk_plain::shfl(::wk_simt::Op::ShflUp, mask, v, d, width, WK_PLAIN_SITE);
}
template <class T>
inline T __shfl_down_sync(wk_lanemask_t mask, T v, unsigned d, int width = warpSize,
                          WK_PLAIN_AT) {
  return ::wk_plain::shfl(::wk_simt::Op::ShflDown, mask, v, d, width, WK_PLAIN_SITE);
}
template <class T>
inline T __shfl_xor_sync(wk_lanemask_t mask, T v, int m, int width = warpSize, WK_PLAIN_AT) {
  return ::wk_plain::shfl(::wk_simt::Op::ShflXor, mask, v, (unsigned)m, width, WK_PLAIN_SITE);
}

inline int __all_sync(wk_lanemask_t mask, int p, WK_PLAIN_AT) {
  return (int)::wk_plain::op(::wk_simt::Op::All, mask, p != 0, 0, 0, 0, WK_PLAIN_SITE).value;
}
inline int __any_sync(wk_lanemask_t mask, int p, WK_PLAIN_AT) {
  return (int)::wk_plain::op(::wk_simt::Op::Any, mask, p != 0, 0, 0, 0, WK_PLAIN_SITE).value;
}
inline int __uni_sync(wk_lanemask_t mask, int p, WK_PLAIN_AT) {
  return (int)::wk_plain::op(::wk_simt::Op::Uni, mask, p != 0, 0, 0, 0, WK_PLAIN_SITE).value;
}
inline wk_lanemask_t __ballot_sync(wk_lanemask_t mask, int p, WK_PLAIN_AT) {
  return (wk_lanemask_t)::wk_plain::op(::wk_simt::Op::Ballot, mask, p != 0, 0, 0, 0,
                                       WK_PLAIN_SITE)
      .value;
}
inline wk_lanemask_t __activemask(WK_PLAIN_AT) { return ::wk_plain::active(WK_PLAIN_SITE); }
inline void __syncwarp(wk_lanemask_t mask = WK_FULL_MASK, WK_PLAIN_AT) {
  ::wk_plain::op(::wk_simt::Op::SyncWarp, mask, 0, 0, 0, 0, WK_PLAIN_SITE);
}

template <class T>
inline wk_lanemask_t __match_any_sync(wk_lanemask_t mask, T v, WK_PLAIN_AT) {
  return (wk_lanemask_t)::wk_plain::op(::wk_simt::Op::MatchAny, mask, ::wk_plain::bits_of(v),
                                       ::wk_plain::shfl_bytes<T>(), 0, 0, WK_PLAIN_SITE)
      .value;
}
template <class T>
inline wk_lanemask_t __match_all_sync(wk_lanemask_t mask, T v, int* pred, WK_PLAIN_AT) {
  const ::wk_simt::WarpResult r =
      ::wk_plain::op(::wk_simt::Op::MatchAll, mask, ::wk_plain::bits_of(v),
                     ::wk_plain::shfl_bytes<T>(), 0, 0, WK_PLAIN_SITE);
  *pred = r.pred;
  return (wk_lanemask_t)r.value;
}

// sm_80's __reduce_*_sync: every lane of the mask gets the reduction over the mask, gathered
// one member at a time (a shuffle each, all at the caller's line).
namespace wk_plain {
template <class T, class F>
inline T reduce_mask(wk_lanemask_t mask, T v, F f, Site s) {
  T acc = v;
  bool first = true;
  for (unsigned l = 0; l < WK_WARP_SIZE; ++l) {
    if (!((uint64_t)mask >> l & 1)) continue;
    const T x = shfl(Op::ShflIdx, mask, v, l, WK_WARP_SIZE, s);
    acc = first ? x : f(acc, x);
    first = false;
  }
  return acc;
}
}  // namespace wk_plain

#define WK_PLAIN_REDUCE(name, T, EXPR)                                          \
  inline T name(wk_lanemask_t mask, T v, WK_PLAIN_AT) {                         \
    return ::wk_plain::reduce_mask(mask, v, [](T a, T b) { return (T)(EXPR); }, \
                                   WK_PLAIN_SITE);                              \
  }
WK_PLAIN_REDUCE(__reduce_add_sync, unsigned, a + b)
WK_PLAIN_REDUCE(__reduce_add_sync, int, a + b)
WK_PLAIN_REDUCE(__reduce_min_sync, unsigned, a < b ? a : b)
WK_PLAIN_REDUCE(__reduce_min_sync, int, a < b ? a : b)
WK_PLAIN_REDUCE(__reduce_max_sync, unsigned, a < b ? b : a)
WK_PLAIN_REDUCE(__reduce_max_sync, int, a < b ? b : a)
WK_PLAIN_REDUCE(__reduce_and_sync, unsigned, a & b)
WK_PLAIN_REDUCE(__reduce_or_sync, unsigned, a | b)
WK_PLAIN_REDUCE(__reduce_xor_sync, unsigned, a ^ b)
#undef WK_PLAIN_REDUCE

// ---- HIP's mask-free forms (and CUDA's before 9) ----
template <class T>
inline T __shfl(T v, int src, int width = warpSize, WK_PLAIN_AT) {
  const ::wk_simt::Site s = WK_PLAIN_SITE;
  return ::wk_plain::shfl(::wk_simt::Op::ShflIdx, ::wk_plain::active(s), v, (unsigned)src,
                          width, s);
}
template <class T>
inline T __shfl_up(T v, unsigned d, int width = warpSize, WK_PLAIN_AT) {
  const ::wk_simt::Site s = WK_PLAIN_SITE;
  return ::wk_plain::shfl(::wk_simt::Op::ShflUp, ::wk_plain::active(s), v, d, width, s);
}
template <class T>
inline T __shfl_down(T v, unsigned d, int width = warpSize, WK_PLAIN_AT) {
  const ::wk_simt::Site s = WK_PLAIN_SITE;
  return ::wk_plain::shfl(::wk_simt::Op::ShflDown, ::wk_plain::active(s), v, d, width, s);
}
template <class T>
inline T __shfl_xor(T v, int m, int width = warpSize, WK_PLAIN_AT) {
  const ::wk_simt::Site s = WK_PLAIN_SITE;
  return ::wk_plain::shfl(::wk_simt::Op::ShflXor, ::wk_plain::active(s), v, (unsigned)m, width,
                          s);
}
// HIP's __ballot is 64 bits at either wave size.
inline unsigned long long __ballot(int p, WK_PLAIN_AT) {
  return ::wk_plain::op(::wk_simt::Op::BallotActive, 0, p != 0, 0, 0, 0, WK_PLAIN_SITE).value;
}
inline int __any(int p, WK_PLAIN_AT) { return __ballot(p, wk_file, wk_line) != 0; }
inline int __all(int p, WK_PLAIN_AT) {
  const ::wk_simt::Site s = WK_PLAIN_SITE;
  const uint64_t voters =
      ::wk_plain::op(::wk_simt::Op::BallotActive, 0, p != 0, 0, 0, 0, s).value;
  const uint64_t here = ::wk_plain::op(::wk_simt::Op::BallotActive, 0, 1, 0, 0, 0, s).value;
  return voters == here;
}

// ---- lanes ----
inline unsigned __lane_id() { return ::wk_simt::lane_id(); }
inline wk_lanemask_t __lanemask_lt() {
  return (wk_lanemask_t)((1ull << __lane_id()) - 1);
}
inline wk_lanemask_t __lanemask_le() {
  return (wk_lanemask_t)(__lanemask_lt() | (1ull << __lane_id()));
}
inline wk_lanemask_t __lanemask_gt() { return (wk_lanemask_t)(~__lanemask_le() & WK_FULL_MASK); }
inline wk_lanemask_t __lanemask_eq() { return (wk_lanemask_t)(1ull << __lane_id()); }

// ---- bit built-ins beyond lang.h's __popc/__ffs/__clz (checked.h checks those) ----
inline unsigned __brev(unsigned v) {
  unsigned r = 0;
  for (unsigned i = 0; i < sizeof(v) * CHAR_BIT; ++i) r |= (v >> i & 1u) << (sizeof(v) * CHAR_BIT - 1 - i);
  return r;
}
inline unsigned long long __brevll(unsigned long long v) {
  unsigned long long r = 0;
  for (unsigned i = 0; i < sizeof(v) * CHAR_BIT; ++i)
    r |= (v >> i & 1ull) << (sizeof(v) * CHAR_BIT - 1 - i);
  return r;
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const uint64_t b = (uint64_t)y << (sizeof(x) * CHAR_BIT) | x;
  unsigned r = 0;
  for (unsigned i = 0; i < 4; ++i) r |= (unsigned)(b >> ((s >> (4 * i) & 7) * CHAR_BIT) & 0xff) << (CHAR_BIT * i);
  return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned sh) {
  const uint64_t b = (uint64_t)hi << (sizeof(lo) * CHAR_BIT) | lo;
  return (unsigned)((b << (sh & (sizeof(lo) * CHAR_BIT - 1))) >> (sizeof(lo) * CHAR_BIT));
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned sh) {
  const uint64_t b = (uint64_t)hi << (sizeof(lo) * CHAR_BIT) | lo;
  return (unsigned)(b >> (sh & (sizeof(lo) * CHAR_BIT - 1)));
}
inline unsigned __umulhi(unsigned a, unsigned b) {
  return (unsigned)(((uint64_t)a * b) >> (sizeof(a) * CHAR_BIT));
}
inline int __mulhi(int a, int b) { return (int)(((int64_t)a * b) >> (sizeof(a) * CHAR_BIT)); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> (sizeof(a) * CHAR_BIT));
}
inline int __mul24(int a, int b) { return a * b; }
inline unsigned __umul24(unsigned a, unsigned b) { return a * b; }
