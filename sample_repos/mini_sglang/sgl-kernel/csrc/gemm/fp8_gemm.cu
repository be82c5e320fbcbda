#include <cuda_fp8.h>
#include <torch/all.h>

#include "mini_kernel_ops.h"

torch::Tensor fp8_scaled_mm(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& scales) {
  return torch::matmul(a, b) * scales;
}

int64_t get_workspace_size() {
  return 1 << 20;
}
