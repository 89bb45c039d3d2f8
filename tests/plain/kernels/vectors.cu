// CUDA's vector types as kernel parameters and as shuffled values: each thread of a tile of 4
// takes its right neighbour's float4 (16 bytes, more than one shuffle moves).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void rotate4(const float4* in, float4* out) {
  cg::thread_block_tile<4> tile = cg::tiled_partition<4>(cg::this_thread_block());
  const float4 v = in[threadIdx.x];
  out[threadIdx.x] = tile.shfl(v, (tile.thread_rank() + 1) % 4);
}
