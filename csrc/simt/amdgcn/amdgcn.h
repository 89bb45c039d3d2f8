// The AMDGCN builtins arch_hip.h (and HIP code like it) calls, for the SIMT executor's hip
// flavour: each one does on the executor what the AMD ISA documents for the instruction it
// lowers to, on CDNA wave64 (gfx90a/gfx940: the "AMD Instinct MI200/MI300 ISA" reference
// guides) and RDNA2 wave32 (gfx1030). The width is the launch's. Cross-lane ones are warp
// collectives over the lanes at the same instruction (an AMD wave's lanes under its EXEC mask);
// csrc/simt/amdgcn/wave.cpp implements them and says how lanes meet and in which order.
#pragma once

#include <stdint.h>
#include <time.h>

#include "../executor.h"

namespace wk_simt {
namespace amdgcn {

// LLVM's integer predicates (llvm/IR/InstrTypes.h CmpInst::Predicate), the third argument of
// the icmp builtins: HIP's own __ballot passes ICMP_NE (33).
enum IcmpPredicate {
  ICMP_EQ = 32,
  ICMP_NE = 33,
  ICMP_UGT = 34,
  ICMP_UGE = 35,
  ICMP_ULT = 36,
  ICMP_ULE = 37,
  ICMP_SGT = 38,
  ICMP_SGE = 39,
  ICMP_SLT = 40,
  ICMP_SLE = 41,
};

// v_mbcnt_lo_u32_b32 / v_mbcnt_hi_u32_b32 (per lane, no exchange): base plus the bits of
// `mask` set below this lane, counting lanes 0..31 (lo) or 32..63 (hi).
unsigned mbcnt_lo(unsigned mask, unsigned base);
unsigned mbcnt_hi(unsigned mask, unsigned base);

// llvm.amdgcn.icmp: `a pred b` compared in every lane at this instruction, the lanes where it
// holds returned as a 64-bit mask (zero-extended on wave32). `bits` is the operand width, 32
// or 64; the predicate says signed or unsigned.
uint64_t icmp(uint64_t a, uint64_t b, int pred, unsigned bits, Site site);

// ds_bpermute_b32: the 32-bit `data` of the lane at byte address `addr`.
int ds_bpermute(int addr, int data, Site site);

// v_readfirstlane_b32: `v` of the lowest lane at this instruction.
int readfirstlane(int v, Site site);

// s_barrier: the work-group barrier.
void s_barrier(Site site);

// A fence at any scope: the executor orders memory at block scope, which from one block's
// point of view every scope HIP's fences name includes.
void fence();

}  // namespace amdgcn
}  // namespace wk_simt

// The builtins by clang's names (clang/include/clang/Basic/BuiltinsAMDGPU.def). Macros, so the
// executor sees the call's own instruction (see wave.cpp) and arch_hip.h's line for reports.
#define __builtin_amdgcn_mbcnt_lo(mask, base) ::wk_simt::amdgcn::mbcnt_lo((mask), (base))
#define __builtin_amdgcn_mbcnt_hi(mask, base) ::wk_simt::amdgcn::mbcnt_hi((mask), (base))
#define __builtin_amdgcn_uicmp(a, b, pred) \
  ::wk_simt::amdgcn::icmp((uint32_t)(a), (uint32_t)(b), (pred), 32, WK_SIMT_HERE)
#define __builtin_amdgcn_sicmp(a, b, pred) \
  ::wk_simt::amdgcn::icmp((uint32_t)(a), (uint32_t)(b), (pred), 32, WK_SIMT_HERE)
#define __builtin_amdgcn_uicmpl(a, b, pred) \
  ::wk_simt::amdgcn::icmp((uint64_t)(a), (uint64_t)(b), (pred), 64, WK_SIMT_HERE)
#define __builtin_amdgcn_sicmpl(a, b, pred) \
  ::wk_simt::amdgcn::icmp((uint64_t)(a), (uint64_t)(b), (pred), 64, WK_SIMT_HERE)
// EXEC itself: the ballot of `true` (s_mov_b64 from exec; its high half is zero on wave32).
#define __builtin_amdgcn_read_exec() \
  ::wk_simt::amdgcn::icmp(1, 0, ::wk_simt::amdgcn::ICMP_NE, 32, WK_SIMT_HERE)
#define __builtin_amdgcn_ds_bpermute(addr, data) \
  ::wk_simt::amdgcn::ds_bpermute((addr), (data), WK_SIMT_HERE)
#define __builtin_amdgcn_readfirstlane(v) ::wk_simt::amdgcn::readfirstlane((v), WK_SIMT_HERE)
// s_barrier: the barrier HIP's __syncthreads is built on.
// s_memrealtime: the wall clock, a counter at 100 MHz as on the AMD GPUs.
inline uint64_t wk_simt_memrealtime() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 100000000u + (uint64_t)t.tv_nsec / 10u;
}
#define __builtin_amdgcn_s_memrealtime() wk_simt_memrealtime()
// A nontemporal load is a plain load on the CPU (no caches to bypass).
#define __builtin_nontemporal_load(p) (*(p))
#define __builtin_amdgcn_s_barrier() ::wk_simt::amdgcn::s_barrier(WK_SIMT_HERE)
// wave_barrier emits no instruction: it only keeps the compiler from moving code across it,
// and the host compiler does not move code across the executor's calls anyway.
#define __builtin_amdgcn_wave_barrier() ((void)0)
#define __builtin_amdgcn_fence(order, scope) \
  ((void)(order), (void)(scope), ::wk_simt::amdgcn::fence())
