"""The fa3 kernel's Python face; only the USE_FA3 branch of main.run imports it."""

import torch

from archpkg import fa3_ops  # noqa: F401  (registers torch.ops.arch_fa3)


def fa3(x: float) -> float:
    return torch.ops.arch_fa3.fa3_fwd(x)
