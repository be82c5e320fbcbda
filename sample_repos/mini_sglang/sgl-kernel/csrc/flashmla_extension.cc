// Op registrations of the flashmla_ops extension (imitates sgl-kernel/csrc/flashmla_extension.cc).
#include <torch/all.h>
#include <torch/library.h>

#include "flashmla/mla_utils.cuh"
#include "mini_kernel_ops.h"

TORCH_LIBRARY_FRAGMENT(mini_kernel, m) {
  m.def("get_mla_metadata(Tensor seqlens_k, int num_heads) -> Tensor[]");
  m.impl("get_mla_metadata", torch::kCUDA, &get_mla_metadata);

  m.def(
      "mla_decode(Tensor q, Tensor kv_cache, Tensor block_table, "
      "float softmax_scale) -> Tensor[]");
  m.impl("mla_decode", torch::kCUDA, &mla_decode);
}

REGISTER_EXTENSION(flashmla_ops)
