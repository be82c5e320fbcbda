#include <torch/all.h>

#include "mini_kernel_ops.h"

std::vector<at::Tensor> mha_fwd(at::Tensor q, at::Tensor k, at::Tensor v, double softmax_scale, bool is_causal) {
  return {torch::softmax(torch::matmul(q, k.transpose(-1, -2)) * softmax_scale, -1).matmul(v)};
}
