// Declarations shared by the flashmla sources only.
#pragma once

#include <torch/all.h>

std::vector<at::Tensor> get_mla_metadata(at::Tensor seqlens_k, int64_t num_heads);
// implemented in the fetched repo (csrc/python_api.cpp)
std::vector<at::Tensor> mla_decode(at::Tensor q, at::Tensor kv_cache, at::Tensor block_table, double softmax_scale);
