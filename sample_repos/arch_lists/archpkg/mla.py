"""The MLA kernels' Python face; only the USE_MLA branch of main.run imports it."""

import torch

from archpkg import mla_ops  # noqa: F401  (registers torch.ops.arch_mla)


def mla(x: float) -> float:
    return torch.ops.arch_mla.mla_fwd(x)
