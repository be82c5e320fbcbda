#include <torch/all.h>

#include "mini_kernel_ops.h"

torch::Tensor moe_align(torch::Tensor topk_ids, int64_t num_experts) {
  return torch::bincount(topk_ids.flatten(), {}, num_experts);
}
