// The one exported symbol: the launcher table (csrc/wavekit/launch.h).
#include "device.h"

namespace WK_NS {

// Every launcher, implemented in csrc/kernels/<name>.cu as <name>_launch.
#define WK_QUERY(ret, name, params)
#define WK_LAUNCHER(name, params) int32_t name##_launch params;
#include "../wavekit/launchers.def"
#undef WK_QUERY
#undef WK_LAUNCHER

namespace {

const char* error_string(int32_t code) {
  switch (code) {
    case WK_OK: return "no error";
    case WK_ERR_WARP_SIZE: return "kernel compiled for another warp width than the device's";
    case WK_ERR_DTYPE: return "unknown element type code";
    case WK_ERR_ARG: return "launcher argument out of range";
    case WK_ERR_INDEX: return "index out of range";
    case WK_ERR_SCRATCH: return "scratch buffer too small";
    case WK_ERR_TIMEOUT: return "a peer GPU did not reach the collective within the timeout";
    default: return code > 0 ? host::error_string(code) : "unknown wavekit error";
  }
}

// The bytes of the type a launcher's partials, prefixes and shared values are in: the element's
// accumulator (Elem<T>::Acc), so float for the 16-bit floats.
uint64_t acc_size(uint32_t dtype) {
  switch (dtype) {
    case DT_I32: case DT_U32: case DT_F32: case DT_F16: case DT_BF16: return 4;
    case DT_I64: case DT_U64: case DT_F64: return 8;
    default: return 0;
  }
}

uint64_t scratch_bytes(uint32_t algo, uint32_t dtype, uint64_t n) {
  uint64_t size = acc_size(dtype);
  if (size == 0 || n == 0) return 0;
  switch (algo) {
    case WK_ALGO_DEVICE_REDUCE: return device_reduce_scratch((uint32_t)size, n);
    case WK_ALGO_DEVICE_SCAN: return device_scan_scratch((uint32_t)size, n);
    case WK_ALGO_COMPACT: return compact_scratch(n);
    case WK_ALGO_SPMV: return spmv_scratch(n);
    case WK_ALGO_RUNS: return runs_scratch(n);
    case WK_ALGO_BY_KEY: return by_key_scratch((uint32_t)size, n);
    case WK_ALGO_PARTITION: return partition_scratch(n);
    case WK_ALGO_PARTITION_REVERSED: return partition_reversed_scratch(n);
    case WK_ALGO_ARG_REDUCE: return arg_reduce_scratch(n);
    default: return 0;
  }
}


const wk_launchers kTable = {
    WK_ABI_VERSION,
    sizeof(wk_launchers),
#define WK_QUERY(ret, name, params) &name,
#define WK_LAUNCHER(name, params) &name##_launch,
#include "../wavekit/launchers.def"
#undef WK_QUERY
#undef WK_LAUNCHER
};

}  // namespace
}  // namespace WK_NS

extern "C" const wk_launchers* WK_LAUNCHERS_SYMBOL(void) { return &WK_NS::kTable; }
