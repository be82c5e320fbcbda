// Op registrations of the _C extension (imitates vLLM's csrc/torch_bindings.cpp).
#include "core/registration.h"
#include "ops.h"

#include <torch/library.h>

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("rms_norm(Tensor! out, Tensor input, Tensor weight, float eps) -> ()");
  ops.impl("rms_norm", torch::kCUDA, &rms_norm);

  // no Python caller in the tree, but the namespace is a macro: kept
  ops.def(
      "fused_add_rms_norm(Tensor! input, Tensor! residual, Tensor weight, "
      "float eps) -> ()");
  ops.impl("fused_add_rms_norm", torch::kCUDA, &fused_add_rms_norm);
}

TORCH_LIBRARY_EXPAND(CONCAT(TORCH_EXTENSION_NAME, _cache_ops), cache_ops) {
  cache_ops.def("reshape_and_cache(Tensor key, Tensor! key_cache, Tensor slot_mapping) -> ()");
  cache_ops.impl("reshape_and_cache", torch::kCUDA, &reshape_and_cache);

  // the MLA cache write a DeepSeek model calls as torch.ops._C_cache_ops.concat_and_cache_mla
  cache_ops.def(
      "concat_and_cache_mla(Tensor kv_c, Tensor k_pe, Tensor! kv_cache, "
      "Tensor slot_mapping) -> ()");
  cache_ops.impl("concat_and_cache_mla", torch::kCUDA, &concat_and_cache_mla);

  cache_ops.def("swap_blocks(Tensor src, Tensor! dst, Tensor mapping) -> ()");
  cache_ops.impl("swap_blocks", torch::kCUDA, &swap_blocks);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
