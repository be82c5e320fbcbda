// GELU kernel (a look-alike).
#include <torch/all.h>

void gelu_fast(torch::Tensor& out, torch::Tensor& input) {}
