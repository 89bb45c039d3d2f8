// CUDA's 32-bit bit built-ins, checked on the SIMT executor: `__popc`, `__ffs` and `__clz` take
// 32 bits, so a wave64 lane mask given to them loses lanes 32..63 without a word from the
// compiler. Here each call tells the executor what it was given (check_narrow): a 64-bit value
// with upper bits set, or a 32-bit value that is the low half of one of the lane's recent
// wave64 ballot, __activemask or match results, is reported (WK_SIMT_MASK_NARROWED). The
// results are CUDA's: the low 32 bits counted.
//
// Included after the arch header by code that wants the check (the hazard corpus); the names
// become macros, so the call's own line is the one reported.
#pragma once

#include "executor.h"

namespace wk_simt {
namespace checked {

template <class T>
inline int popc(T v, Site site) {
  check_narrow("__popc", (uint64_t)v, sizeof(T), site);
  return __builtin_popcount((unsigned)v);
}
template <class T>
inline int ffs(T v, Site site) {
  check_narrow("__ffs", (uint64_t)v, sizeof(T), site);
  return __builtin_ffs((int)v);
}
template <class T>
inline int clz(T v, Site site) {
  check_narrow("__clz", (uint64_t)v, sizeof(T), site);
  return (unsigned)v ? __builtin_clz((unsigned)v) : 32;
}

}  // namespace checked
}  // namespace wk_simt

#define __popc(v) ::wk_simt::checked::popc((v), WK_SIMT_HERE)
#define __ffs(v) ::wk_simt::checked::ffs((v), WK_SIMT_HERE)
#define __clz(v) ::wk_simt::checked::clz((v), WK_SIMT_HERE)
