#include <torch/all.h>

torch::Tensor rms_norm(torch::Tensor x) { return x; }
