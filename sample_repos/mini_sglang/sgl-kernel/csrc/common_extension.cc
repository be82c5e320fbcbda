// Op registrations of the common_ops extension (imitates sgl-kernel/csrc/common_extension.cc).
#include <torch/all.h>
#include <torch/library.h>

#include "mini_kernel_ops.h"

#define SCHEMA(s) s

TORCH_LIBRARY_FRAGMENT(mini_kernel, m) {
  // plain schema + CUDA impl
  m.def("silu_and_mul(Tensor! out, Tensor input) -> ()");
  m.impl("silu_and_mul", torch::kCUDA, &silu_and_mul);

  // schema built from adjacent string literals
  m.def(
      "rmsnorm(Tensor! output, Tensor input, "
      "Tensor weight, float eps) -> ()");
  m.impl("rmsnorm", torch::kCUDA, &rmsnorm);

  // macro-wrapped schemas
  m.def(SCHEMA("fp8_scaled_mm(Tensor a, Tensor b, Tensor scales) -> Tensor"));
  m.impl("fp8_scaled_mm", torch::kCUDA, &fp8_scaled_mm);
  m.def(STRINGIFY(gelu_and_mul(Tensor! out, Tensor input) -> ()));
  m.impl("gelu_and_mul", torch::kCUDA, &gelu_and_mul);

  // name + function, and schema + torch::dispatch
  m.def("get_workspace_size", &get_workspace_size);
  m.def("moe_align(Tensor topk_ids, int num_experts) -> Tensor", torch::dispatch(c10::DispatchKey::CUDA, &moe_align));

  // impl without a dispatch key
  m.def("topk_softmax(Tensor! out, Tensor logits) -> ()");
  m.impl("topk_softmax", &topk_softmax);

  // registered, but no Python code calls it
  m.def("unused_op(Tensor x) -> Tensor");
  m.impl("unused_op", torch::kCUDA, &unused_op);
}

REGISTER_EXTENSION(common_ops)
