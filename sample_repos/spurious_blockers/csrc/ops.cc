#include <torch/library.h>

at::Tensor triton_decode(const at::Tensor& q) { return q; }
at::Tensor fmla_decode(const at::Tensor& q) { return q; }

TORCH_LIBRARY(kern, m) {
  m.def("triton_decode(Tensor q) -> Tensor");
  m.impl("triton_decode", &triton_decode);
  m.def("fmla_decode(Tensor q) -> Tensor");
  m.impl("fmla_decode", &fmla_decode);
}
