"""mini_kernel: Python face of the sample kernel library (imitates sgl_kernel/__init__.py).

Like sgl_kernel, it does not import the optional flash_mla / flash_attn wrappers: their
extensions load only when a backend imports them.
"""

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

__all__ = [
    "gelu_and_mul",
    "moe_align",
    "rmsnorm",
    "silu_and_mul",
    "topk_softmax",
]
