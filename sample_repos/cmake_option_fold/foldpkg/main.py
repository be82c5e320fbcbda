"""Entry point: scales with the core_ops extension; foo_ops is optional."""

import torch

from foldpkg import core_ops  # noqa: F401  (registers torch.ops.fold_core)

try:
    from foldpkg import foo_ops  # noqa: F401  (built only with ENABLE_FOO)

    HAS_FOO = True
except ImportError:
    HAS_FOO = False


def run(x: float) -> float:
    return torch.ops.fold_core.scale(x)


if __name__ == "__main__":
    print(run(1.0), HAS_FOO)
