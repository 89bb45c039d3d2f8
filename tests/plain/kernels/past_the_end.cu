// A store past the end of its output buffer: `wavekit check` places every buffer against an
// inaccessible page, so the first store beyond it faults, is reported, and the check goes on.
__global__ void past_the_end(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i + n] = in[i];  // PAST
}
