// Tiles of 128 threads of a 256-thread block, CUDA's multi-warp tiles: legal at any warp width.
// A tile's sync orders the stage writes of its other warps; reduce, shfl and all span the
// tile, not the warp.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void tile128(const int* in, int* out) {
  __shared__ int stage[256];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<128> tile = cg::tiled_partition<128>(block);
  const unsigned r = block.thread_rank();
  stage[r] = in[r];
  tile.sync();
  // The mirror rank's value, written by another warp of the tile.
  const int mirror = stage[tile.meta_group_rank() * 128 + (127 - tile.thread_rank())];
  const int sum = cg::reduce(tile, in[r], cg::plus<int>());
  const int first = tile.shfl(in[r], 0);
  const int all = tile.all(in[r] > 0);
  const int before = cg::exclusive_scan(tile, 1);
  out[r] = tile.meta_group_size() * 10000000 + sum * 1000 + mirror * 100 + first * 10 + all +
           (before == (int)tile.thread_rank() ? 0 : 5000000);
}
