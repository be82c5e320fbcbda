#include <torch/library.h>

torch::Tensor rms_norm_cpu(torch::Tensor x) { return x; }

TORCH_LIBRARY_IMPL(_C, CPU, m) { m.impl("rms_norm", &rms_norm_cpu); }
