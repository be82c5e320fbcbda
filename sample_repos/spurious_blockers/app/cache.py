"""A kernel argument that spells a dropped key selects nothing (SGLang's
fused_store_cache(..., type="flashmla")); debug_op reads the torch.ops namespace its callers
pass (SGLang's debug_torch_op): here the default, "mine"."""

import torch


def fused_store(cache, type):  # noqa: A002
    return cache


def store(backend):
    debug_op(backend, "noop")
    return fused_store(backend, type="fmla")


def debug_op(fn, op_name, *, namespace="mine"):
    return getattr(getattr(torch.ops, namespace), op_name)


def capture(backend):
    """Type tests of a list: the fmla class is added, but nothing live constructs it."""
    types = []
    from app.triton_backend import TritonBackend

    types.append(TritonBackend)
    from app.fmla_backend import FmlaBackend

    types.append(FmlaBackend)
    return isinstance(backend, tuple(types))
