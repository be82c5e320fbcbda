"""The misc kernel's Python face; only the USE_MISC branch of main.run imports it."""

import torch

from archpkg import misc_ops  # noqa: F401  (registers torch.ops.arch_misc)


def misc(x: float) -> float:
    return torch.ops.arch_misc.misc(x)
