// MoE ops of the _moe_C extension: a macro namespace again.
#include "core/registration.h"

#include <torch/library.h>

void topk_softmax(torch::Tensor& topk_weights, torch::Tensor& topk_indices,
                  torch::Tensor& gating_output);

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, m) {
  m.def("topk_softmax(Tensor! topk_weights, Tensor! topk_indices, Tensor gating_output) -> ()");
  m.impl("topk_softmax", torch::kCUDA, &topk_softmax);
}
