#include <torch/all.h>

#include "mini_kernel_ops.h"
#include "utils.cuh"

void rmsnorm(at::Tensor& output, at::Tensor& input, at::Tensor& weight, double eps) {
  output.copy_(input * torch::rsqrt(input.pow(2).mean(-1, true) + eps) * weight);
}

torch::Tensor unused_op(torch::Tensor x) {
  return x;
}
