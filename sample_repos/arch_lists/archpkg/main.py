"""Entry point: scales with core_ops; the optional extensions run when their flag is on."""

import torch

from archpkg import core_ops  # noqa: F401  (registers torch.ops.arch_core)
from archpkg.flags import USE_FA3, USE_MISC, USE_MLA


def run(x: float) -> float:
    y = torch.ops.arch_core.scale(x)
    if USE_MLA:
        from archpkg.mla import mla

        y = mla(y)
    if USE_FA3:
        from archpkg.fa3 import fa3

        y = fa3(y)
    if USE_MISC:
        from archpkg.misc import misc

        y = misc(y)
    return y


if __name__ == "__main__":
    print(run(1.0))
