// A literal namespace read whole from Python (getattr(torch.ops.macro_quant, name)).
#include <torch/library.h>

void scaled_fp8_quant(torch::Tensor& out, torch::Tensor const& input);
void unused_quant(torch::Tensor& out);

TORCH_LIBRARY_FRAGMENT(macro_quant, m) {
  m.def("scaled_fp8_quant(Tensor! out, Tensor input) -> ()");
  m.impl("scaled_fp8_quant", torch::kCUDA, &scaled_fp8_quant);
  m.def("unused_quant(Tensor! out) -> ()");
  m.impl("unused_quant", torch::kCUDA, &unused_quant);
}
