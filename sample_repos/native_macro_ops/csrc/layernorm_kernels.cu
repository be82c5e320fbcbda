// RMSNorm kernels (a look-alike, not a real implementation).
#include "ops.h"

__global__ void rms_norm_kernel(float* out, const float* in, const float* w, int n) {}

void rms_norm(torch::Tensor& out, torch::Tensor& input, torch::Tensor& weight, double eps) {
  rms_norm_kernel<<<1, 1>>>(nullptr, nullptr, nullptr, 0);
}

void fused_add_rms_norm(torch::Tensor& input, torch::Tensor& residual, torch::Tensor& weight,
                        double eps) {}
