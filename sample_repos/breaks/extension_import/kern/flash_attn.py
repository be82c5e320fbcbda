"""Needs the flash_ops build: the handler re-raises, so importing this fails without it."""

try:
    from kern import flash_ops  # noqa: F401
except ImportError:
    raise ImportError("kern was built without FlashAttention") from None


def fwd(q):
    import torch

    return torch.ops.kern.fwd(q)
