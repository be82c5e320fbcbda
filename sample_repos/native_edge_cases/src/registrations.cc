// Registrations that tree-sitter-cuda cannot parse cleanly.
#include <torch/library.h>
#include "edge_ops.h"

#define EDGE_FLAGS

BEGIN_KERNEL_TABLE(edge) {
  ENTRY(foo) ENTRY(bar) ]
}

TORCH_LIBRARY(edge, m) {
  m.def("plain(Tensor a) -> ()");
  m.impl("plain", torch::kCUDA, &plain_impl);
  m.def("weird(Tensor a, " EDGE_FLAGS "int b) -> Tensor", &weird_impl);
#if defined(EDGE_EXTRA)
  m.def("extra_op.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)");
#endif
  m.impl("extra_op.out", c10::DispatchKey::CPU, TORCH_FN(extra_cpu));
  m.def("lambda_op(Tensor x) -> Tensor", [](const at::Tensor& x) { return x; });
  m.def(STRINGIFY(arrow_op(Tensor x) -> Tensor));
}

TORCH_LIBRARY_IMPL(edge, CUDA, m) {
  m.impl("weird", &weird_cuda);
  m.impl("arrow_op", ns::arrow_cuda);
}

// bad bytes: ÿþ in a comment
PYBIND11_MODULE(edge_py, m) {
  m.def("helper", &helper, "doc string");
  m.def("other", [](int x) { return x; });
}
