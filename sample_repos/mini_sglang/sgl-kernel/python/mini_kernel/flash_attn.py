"""FA3-like wrapper (imitates sgl_kernel/flash_attn.py): needs the optional flash_ops build."""

import torch

try:
    from mini_kernel import flash_ops  # noqa: F401  (built only with -DENABLE_FA3=ON)
except ImportError:
    flash_ops = None


def is_fa3_supported():
    return flash_ops is not None


def flash_attn_fwd(q, k, v, softmax_scale, causal=False):
    return torch.ops.mini_kernel.fwd.default(q, k, v, softmax_scale, causal)
