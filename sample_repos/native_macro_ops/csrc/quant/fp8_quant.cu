// FP8 quantization kernels (a look-alike).
#include <torch/all.h>

void scaled_fp8_quant(torch::Tensor& out, torch::Tensor const& input) {}

void unused_quant(torch::Tensor& out) {}
