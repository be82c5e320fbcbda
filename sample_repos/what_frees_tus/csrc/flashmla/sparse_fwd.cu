#include <torch/all.h>

__global__ void sparse_kernel(const float* q, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = q[i];
}

at::Tensor sparse_fwd(at::Tensor q) { return q; }
