// The GELU kernel nothing calls any more (a look-alike).
#include <torch/all.h>

void old_gelu(torch::Tensor& out, torch::Tensor& input) {}
