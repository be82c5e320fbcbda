// Op registrations of the FA3-like flash_ops extension (imitates sgl-kernel/csrc/flash_extension.cc).
#include <torch/all.h>
#include <torch/library.h>

#include "mini_kernel_ops.h"

TORCH_LIBRARY_FRAGMENT(mini_kernel, m) {
  m.def("fwd(Tensor q, Tensor k, Tensor v, float softmax_scale, bool is_causal) -> Tensor[]");
  m.impl("fwd", torch::kCUDA, &mha_fwd);
}

REGISTER_EXTENSION(flash_ops)
