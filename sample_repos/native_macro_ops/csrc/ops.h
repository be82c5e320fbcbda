#pragma once

#include <torch/all.h>

void rms_norm(torch::Tensor& out, torch::Tensor& input, torch::Tensor& weight, double eps);
void fused_add_rms_norm(torch::Tensor& input, torch::Tensor& residual, torch::Tensor& weight,
                        double eps);
void reshape_and_cache(torch::Tensor& key, torch::Tensor& key_cache,
                       torch::Tensor& slot_mapping);
void concat_and_cache_mla(torch::Tensor& kv_c, torch::Tensor& k_pe, torch::Tensor& kv_cache,
                          torch::Tensor& slot_mapping);
void swap_blocks(torch::Tensor& src, torch::Tensor& dst, const torch::Tensor& mapping);
