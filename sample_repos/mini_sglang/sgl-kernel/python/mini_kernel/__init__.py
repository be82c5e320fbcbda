"""mini_kernel: Python face of the sample kernel library (imitates sgl_kernel/__init__.py)."""

import torch  # noqa: F401  (the extension needs torch loaded first)

from mini_kernel import common_ops  # noqa: F401  (registers torch.ops.mini_kernel.*)
from mini_kernel.elementwise import (
    fp8_scaled_mm,
    gelu_and_mul,
    moe_align,
    rmsnorm,
    silu_and_mul,
    topk_softmax,
)
from mini_kernel.flash_mla import get_mla_metadata, mla_decode

__all__ = [
    "fp8_scaled_mm",
    "gelu_and_mul",
    "get_mla_metadata",
    "mla_decode",
    "moe_align",
    "rmsnorm",
    "silu_and_mul",
    "topk_softmax",
]
