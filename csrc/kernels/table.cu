// The one exported symbol: the launcher table (csrc/wavekit/launch.h).
#include "device.h"

namespace WK_NS {

int vote_launch(void*, wk_status*, uint32_t, uint32_t, uint32_t, const uint8_t*, uint64_t,
                uint64_t, uint64_t*);
int shfl_launch(void*, wk_status*, uint32_t, uint32_t, uint32_t, const void*, uint64_t, uint64_t,
                uint32_t, uint32_t, void*);
int match_launch(void*, wk_status*, uint32_t, uint32_t, uint32_t, uint32_t, const void*, uint64_t,
                 uint64_t, uint64_t*, uint8_t*);
int activemask_launch(void*, wk_status*, uint32_t, uint32_t, uint64_t, uint64_t, uint64_t*);
int transpose_launch(void*, wk_status*, uint32_t, uint32_t, uint32_t, const void*, uint64_t,
                     uint64_t, void*);
int tile_shfl_launch(void*, wk_status*, uint32_t, uint32_t, uint32_t, const void*, uint64_t,
                     uint32_t, uint32_t, void*);
int tile_vote_launch(void*, wk_status*, uint32_t, uint32_t, uint32_t, const uint8_t*, uint64_t,
                     uint32_t, uint64_t*);
int tile_reduce_launch(void*, wk_status*, uint32_t, uint32_t, uint32_t, const void*, uint64_t,
                       uint32_t, void*);
int warp_reduce_launch(void*, wk_status*, uint32_t, uint32_t, uint32_t, const void*, uint64_t,
                       uint32_t, void*);
int warp_scan_launch(void*, wk_status*, uint32_t, uint32_t, uint32_t, uint32_t, const void*,
                     uint64_t, uint32_t, void*);
int block_reduce_launch(void*, wk_status*, uint32_t, uint32_t, const void*, uint64_t, uint32_t,
                        void*);
int device_reduce_launch(void*, wk_status*, uint32_t, uint32_t, const void*, uint64_t, void*,
                         uint64_t, void*);
int segmented_reduce_launch(void*, wk_status*, uint32_t, uint32_t, const void*, uint64_t,
                            const uint32_t*, uint64_t, uint64_t, uint32_t, void*);
int spmv_launch(void*, wk_status*, uint32_t, const uint32_t*, const uint32_t*, const void*,
                const void*, uint64_t, uint32_t, void*);
int agg_inc_launch(void*, wk_status*, uint32_t, uint32_t, const uint32_t*, uint64_t, uint32_t*,
                   uint64_t, uint32_t*);
int count_if_launch(void*, wk_status*, uint32_t, uint32_t, uint64_t, uint64_t, const void*,
                    uint64_t, void*, uint64_t, uint64_t*);
int compact_launch(void*, wk_status*, uint32_t, uint32_t, uint32_t, uint64_t, uint64_t, uint32_t,
                   const void*, uint64_t, void*, uint64_t, void*, uint64_t*);
int histogram_launch(void*, wk_status*, const uint32_t*, uint64_t, uint32_t, uint64_t*);

namespace {

const char* error_string(int32_t code) {
  switch (code) {
    case WK_OK: return "no error";
    case WK_ERR_WARP_SIZE: return "kernel compiled for another warp width than the device's";
    case WK_ERR_DTYPE: return "unknown element type code";
    case WK_ERR_ARG: return "launcher argument out of range";
    case WK_ERR_INDEX: return "index out of range";
    case WK_ERR_SCRATCH: return "scratch buffer too small";
    default: return code > 0 ? host::error_string(code) : "unknown wavekit error";
  }
}

uint64_t elem_size(uint32_t dtype) {
  switch (dtype) {
    case DT_I32: case DT_U32: case DT_F32: return 4;
    case DT_I64: case DT_U64: case DT_F64: return 8;
    default: return 0;
  }
}

uint64_t scratch_bytes(uint32_t algo, uint32_t dtype, uint64_t n) {
  uint64_t size = elem_size(dtype);
  if (size == 0 || n == 0) return 0;
  switch (algo) {
    case WK_ALGO_DEVICE_REDUCE: return device_reduce_scratch((uint32_t)size, n);
    case WK_ALGO_DEVICE_SCAN: return device_scan_scratch((uint32_t)size, n);
    case WK_ALGO_COMPACT: return compact_scratch(n);
    default: return 0;
  }
}


const wk_launchers kTable = {
    WK_ABI_VERSION,
    sizeof(wk_launchers),
    &error_string,
    &scratch_bytes,
    &vote_launch,
    &shfl_launch,
    &match_launch,
    &activemask_launch,
    &transpose_launch,
    &tile_shfl_launch,
    &tile_vote_launch,
    &tile_reduce_launch,
    &warp_reduce_launch,
    &warp_scan_launch,
    &block_reduce_launch,
    &device_reduce_launch,
    &device_scan_launch,
    &segmented_reduce_launch,
    &spmv_launch,
    &agg_inc_launch,
    &count_if_launch,
    &compact_launch,
    &histogram_launch,
    &look_back_probe_launch,
};

}  // namespace
}  // namespace WK_NS

extern "C" const wk_launchers* WK_LAUNCHERS_SYMBOL(void) { return &WK_NS::kTable; }
