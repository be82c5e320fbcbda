#include <torch/all.h>

#include "mini_kernel_ops.h"

void topk_softmax(torch::Tensor& out, torch::Tensor& logits) {
  out.copy_(torch::softmax(logits, -1));
}
