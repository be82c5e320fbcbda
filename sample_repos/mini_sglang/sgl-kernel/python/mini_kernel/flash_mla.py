"""FlashMLA wrappers (imitates sgl_kernel/flash_mla.py): ops live in the flashmla_ops extension."""

import torch

try:
    from mini_kernel import flashmla_ops  # noqa: F401  (registers the flashmla ops)

    _FLASHMLA_AVAILABLE = True
except ImportError:
    _FLASHMLA_AVAILABLE = False


def get_mla_metadata(seqlens_k, num_heads):
    return torch.ops.mini_kernel.get_mla_metadata.default(seqlens_k, num_heads)


def mla_decode(q, kv_cache, block_table, softmax_scale):
    return torch.ops.mini_kernel.mla_decode.default(q, kv_cache, block_table, softmax_scale)
