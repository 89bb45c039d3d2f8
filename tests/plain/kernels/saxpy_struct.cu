// A kernel taking its arguments in a struct of pointers and scalars.
struct Saxpy {
  const float* x;
  float* y;
  float a;
  int n;
};

__global__ void saxpy(Saxpy p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) p.y[i] = p.a * p.x[i] + p.y[i];
}
