// Grid-wide barriers of cooperative launches (`wavekit check --cooperative`): each kernel calls
// grid.sync() between a phase whose results another block reads and that read. The outputs are
// numbers the tests work out from the inputs; a run whose blocks did not all reach the barrier
// before any went on would give others.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// A two-phase sum: each block adds its values up in shared memory and writes its partial, the
// grid's barrier, then block 0 adds the partials up (at most 256 threads a block).
__global__ void grid_sum(const int* in, int* partials, int* total) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ int sums[256];
  const unsigned t = threadIdx.x;
  sums[t] = in[grid.thread_rank()];
  block.sync();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) sums[t] += sums[t + s];
    block.sync();
  }
  if (t == 0) partials[blockIdx.x] = sums[0];
  grid.sync();
  if (grid.block_rank() == 0 && t == 0) {
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += partials[b];
    *total = sum;
  }
}

// Every thread of the grid rotates the grid's values by one, `rounds` times: it reads its
// neighbour's (in the next block, for the last thread of a block), a barrier, writes its own,
// a barrier. Thread r ends with r + rounds, modulo the grid's size.
__global__ void rotate(int* data, int rounds) {
  cg::grid_group grid = cg::this_grid();
  const unsigned long long r = grid.thread_rank(), n = grid.size();
  data[r] = (int)r;
  cg::sync(grid);
  for (int i = 0; i < rounds; ++i) {
    const int v = data[(r + 1) % n];
    grid.sync();
    data[r] = v;
    grid.sync();
  }
}

// Shared memory stays the block's across the grid's barrier: thread 0 writes the block's value
// before it, every thread reads it after (ordered by the barrier, not a race), and each block
// sees its own.
__global__ void block_value(int* out) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int mine;
  if (threadIdx.x == 0) mine = 100 * (int)(blockIdx.x + 1);
  grid.sync();
  out[grid.thread_rank()] = mine + (grid.is_valid() ? 1 : 0);
}

// grid.sync() in a branch the first 16 threads of each block take: the others go on to exit.
__global__ void sync_some_threads(int* out) {
  cg::grid_group grid = cg::this_grid();
  out[grid.thread_rank()] = 1;
  if (threadIdx.x < 16) grid.sync();  // only threads 0-15
}

// grid.sync() in a branch only block 0 takes: the other blocks exit without it.
__global__ void sync_some_blocks(int* out) {
  cg::grid_group grid = cg::this_grid();
  out[grid.thread_rank()] = 1;
  if (blockIdx.x == 0) grid.sync();  // only block 0
}

// The barrier through a macro, which the reader does not expand: without --cooperative the
// build stops at it, saying what it needs.
#define GRID_BARRIER(g) (g).sync()
__global__ void through_macro(int* out) {
  cg::grid_group grid = cg::this_grid();
  out[grid.thread_rank()] = (int)grid.thread_rank();
  GRID_BARRIER(grid);
  if (grid.thread_rank() == 0) out[0] = out[grid.size() - 1];
}
