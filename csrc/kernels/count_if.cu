// count_if: elements that satisfy a predicate (docs/SEMANTICS.md "count_if").
#include "count.h"

namespace WK_NS {
using namespace prims;

namespace {

// The predicate as count_kernel's classifier: 1 for an element that satisfies it.
template <typename T> struct PredCount {
  uint32_t pred;
  T a, b;
  __device__ __forceinline__ uint64_t operator()(T x) const { return eval_pred(pred, x, a, b) ? 1 : 0; }
};

}  // namespace

int count_if_launch(void* stream, wk_status*, uint32_t dtype, uint32_t pred, uint64_t a,
                    uint64_t b, const void* in, uint64_t n, void*, uint64_t, uint64_t* out) {
  if (pred > 6) return WK_ERR_ARG;
  int rc = host::memset_async(out, 0, sizeof(uint64_t), as_stream(stream));
  if (rc) return rc;
  return with_dtype_io(dtype, [&](auto tag) {
    typedef typename decltype(tag)::type T;
    PredCount<T> c{pred, from_bits<T>((typename Elem<T>::U)a), from_bits<T>((typename Elem<T>::U)b)};
    WK_LAUNCH(strided_grid(n / (16 / sizeof(T))), kBlock, 0, as_stream(stream),
              count_kernel<T, PredCount<T>>)(c, (const T*)in, n, (unsigned long long*)out, 1u);
    return host::launch_error();
  });
}

}  // namespace WK_NS
