// KV-cache writes (a look-alike, not a real implementation).
#include "ops.h"

#include <cutlass/numeric_types.h>

void reshape_and_cache(torch::Tensor& key, torch::Tensor& key_cache,
                       torch::Tensor& slot_mapping) {}

void concat_and_cache_mla(torch::Tensor& kv_c, torch::Tensor& k_pe, torch::Tensor& kv_cache,
                          torch::Tensor& slot_mapping) {}

void swap_blocks(torch::Tensor& src, torch::Tensor& dst, const torch::Tensor& mapping) {}
