#include <torch/all.h>

#include "mini_kernel_ops.h"
#include "utils.cuh"

namespace mini_kernel {

template <typename T>
__global__ void act_and_mul_kernel(T* out, const T* input, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < d) out[i] = silu(input[i]) * input[i + d];
}

}  // namespace mini_kernel

void silu_and_mul(at::Tensor& out, at::Tensor& input) {
  int d = input.size(-1) / 2;
  mini_kernel::act_and_mul_kernel<float><<<1, d>>>(out.data_ptr<float>(), input.data_ptr<float>(), d);
}

void gelu_and_mul(at::Tensor& out, at::Tensor& input) {
  silu_and_mul(out, input);
}
