// Cooperative groups and the rest of the warp intrinsics: tiles of 16 (sum by cg::reduce and by
// shfl_xor, ballot, any, all, shfl), a dynamic tiled_partition, __match_any_sync,
// __match_all_sync, __reduce_add_sync, __syncthreads_count, shared atomics, __ldg and a
// float4 stage. Each output is a number the test works out from the input.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void tiles(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  const int v = in[block.thread_rank()];
  const int sum = cg::reduce(tile, v, cg::plus<int>());
  int butterfly = v;
  for (int i = tile.size() / 2; i > 0; i /= 2) butterfly += tile.shfl_xor(butterfly, i);
  const unsigned votes = tile.ballot(v > 0);
  const int first = tile.shfl(v, 0);
  cg::thread_group warp = cg::tiled_partition(block, 32);
  warp.sync();
  out[block.thread_rank()] = sum + (butterfly == sum ? 100 : 0) + (votes == 0xffff ? 1000 : 0) +
                             (tile.any(v > 0) ? 10000 : 0) + (tile.all(v > 0) ? 100000 : 0) +
                             first * 1000000;
}

__global__ void warp_misc(const int* in, int* out) {
  const int tid = threadIdx.x;
  const auto peers = __match_any_sync(~0ull, in[tid] & 3);
  int same = 0;
  __match_all_sync(~0ull, 7, &same);
  const unsigned total = __reduce_add_sync(~0ull, (unsigned)in[tid]);
  const int positives = __syncthreads_count(in[tid] > 0);
  out[tid] = __popcll(peers) + same * 100 + (int)total * 1000 + positives * 100000;
}

__global__ void shared_atomics(const int* in, int* out) {
  __shared__ int bins[4];
  __shared__ float4 stage[64];
  const int tid = threadIdx.x;
  if (tid < 4) bins[tid] = 0;
  stage[tid] = make_float4(1.0f, 2.0f, 3.0f, (float)tid);
  __syncthreads();
  atomicAdd(&bins[__ldg(&in[tid]) & 3], 1);
  __syncthreads();
  const float4 mine = stage[blockDim.x - 1 - tid];
  out[tid] = (tid < 4 ? bins[tid] : 0) + (int)mine.w * 1000;
}
