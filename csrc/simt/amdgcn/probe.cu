// Probes of the AMDGCN builtins (amdgcn.h) and of arch_hip.h's use of them, run by
// tests/simt_amdgcn.rs through backends/simt/src/amdgcn.rs: one block of `threads` threads,
// thread t with operands a[t], b[t] and branch flag active[t], writing out[2t] and out[2t + 1].
// Built in the hip flavour only, at 64 and 32 lanes.
#include "../../wavekit/width.h"

#define WK_AMDGCN_PASTE2(a, b) a##b
#define WK_AMDGCN_PASTE(a, b) WK_AMDGCN_PASTE2(a, b)

namespace WK_NS {
namespace amdgcn_probe {

// backends/simt/src/amdgcn.rs Probe.
enum Probe : uint32_t {
  // One builtin in the threads with active[t] set; the others return first (EXEC bit off).
  MBCNT_LO = 0,       // mbcnt_lo(a, b)
  MBCNT_HI = 1,       // mbcnt_hi(a, b)
  LANE_ID = 2,        // arch::lane_id(), arch::lanemask_lt()
  UICMP = 3,          // uicmp(a, b, arg)
  SICMP = 4,          // sicmp(a, b, arg)
  BPERMUTE = 5,       // ds_bpermute(a, b)
  READFIRSTLANE = 6,  // readfirstlane(b)
  READ_EXEC = 7,      // read_exec()
  SHFL64 = 8,         // arch::shfl_idx_sync of b << 32 | a from lane arg (two permutes)
  // Every thread; active[t] picks the branch.
  BRANCH_JOIN = 9,  // if (active) ballot(a != 0); then everyone: ballot(b != 0)
  IF_ELSE = 10,     // active: ballot(a != 0), else: read_exec(); then everyone: read_exec()
  LOOP = 11,        // a[t] rounds adding popcount(read_exec()); then read_exec()
  LDS_BARRIER = 12,  // lds[t] = a; s_barrier if arg; read lds[t + warp size]
  LDS_WAVE = 13,     // lds[t] = a; fence, ballot, fence (arg) or wave_barrier, ballot; lds[t ^ 1]
};

const unsigned kMaxThreads = 1024;

__global__ void probe_kernel(uint32_t probe, uint32_t arg, const uint8_t* active,
                             const uint32_t* a, const uint32_t* b, uint64_t* out) {
  const unsigned t = threadIdx.x, n = blockDim.x;
  const bool act = active[t] != 0;
  const uint32_t av = a[t], bv = b[t];
  uint64_t* o = out + 2 * t;
  if (probe <= SHFL64 && !act) return;
  switch (probe) {
    case MBCNT_LO: o[0] = __builtin_amdgcn_mbcnt_lo(av, bv); break;
    case MBCNT_HI: o[0] = __builtin_amdgcn_mbcnt_hi(av, bv); break;
    case LANE_ID:
      o[0] = arch::lane_id();
      o[1] = arch::lanemask_lt();
      break;
    case UICMP: o[0] = __builtin_amdgcn_uicmp(av, bv, (int)arg); break;
    case SICMP: o[0] = __builtin_amdgcn_sicmp((int)av, (int)bv, (int)arg); break;
    case BPERMUTE: o[0] = (uint32_t)__builtin_amdgcn_ds_bpermute((int)av, (int)bv); break;
    case READFIRSTLANE: o[0] = (uint32_t)__builtin_amdgcn_readfirstlane((int)bv); break;
    case READ_EXEC: o[0] = __builtin_amdgcn_read_exec(); break;
    case SHFL64:
      o[0] = arch::shfl_idx_sync(WK_FULL_MASK, (uint64_t)bv << 32 | av, arg, WK_WARP_SIZE);
      break;
    case BRANCH_JOIN: {
      uint64_t x = 0;
      if (act) x = __builtin_amdgcn_uicmp(av, 0u, 33);
      o[0] = x;
      o[1] = __builtin_amdgcn_uicmp(bv, 0u, 33);
      break;
    }
    case IF_ELSE: {
      uint64_t x;
      if (act)
        x = __builtin_amdgcn_uicmp(av, 0u, 33);
      else
        x = __builtin_amdgcn_read_exec();
      o[0] = x;
      o[1] = __builtin_amdgcn_read_exec();
      break;
    }
    case LOOP: {
      uint64_t sum = 0;
      for (uint32_t i = 0; i < av; ++i) sum += __builtin_popcountll(__builtin_amdgcn_read_exec());
      o[0] = sum;
      o[1] = __builtin_amdgcn_read_exec();
      break;
    }
    case LDS_BARRIER: {
      WK_SHARED(uint32_t, lds, kMaxThreads);
      lds[t] = av;
      if (arg) __builtin_amdgcn_s_barrier();
      o[0] = lds[(t + WK_WARP_SIZE) % n];
      break;
    }
    case LDS_WAVE: {
      WK_SHARED(uint32_t, lds, kMaxThreads);
      lds[t] = av;
      if (arg) {
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
        (void)__builtin_amdgcn_uicmp(1u, 0u, 33);
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
      } else {
        __builtin_amdgcn_wave_barrier();
        (void)__builtin_amdgcn_uicmp(1u, 0u, 33);
      }
      o[0] = lds[(t ^ 1) % n];
      break;
    }
    default: break;
  }
}

}  // namespace amdgcn_probe
}  // namespace WK_NS

extern "C" int WK_AMDGCN_PASTE(WK_NS, _amdgcn_probe)(void* stream, uint32_t probe, uint32_t arg,
                                                     uint32_t threads, const uint8_t* active,
                                                     const uint32_t* a, const uint32_t* b,
                                                     uint64_t* out) {
  using namespace WK_NS::amdgcn_probe;
  if (threads == 0 || threads > kMaxThreads || probe > LDS_WAVE) return -1;
  WK_LAUNCH(1, threads, 0, stream, probe_kernel)(probe, arg, active, a, b, out);
  return WK_NS::host::launch_error();
}
