// Op registrations of the flashmla_ops extension.
#include <torch/library.h>

at::Tensor mla_decode(at::Tensor q);
at::Tensor sparse_fwd(at::Tensor q);

TORCH_LIBRARY_FRAGMENT(kern, m) {
  m.def("mla_decode(Tensor q) -> Tensor");
  m.impl("mla_decode", torch::kCUDA, &mla_decode);
  m.def("sparse_fwd(Tensor q) -> Tensor");
  m.impl("sparse_fwd", torch::kCUDA, &sparse_fwd);
}
