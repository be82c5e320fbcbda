import torch

from kern import flashmla_ops  # noqa: F401  (registers torch.ops.kern.*)


def flash_mla_with_kvcache(q):
    return torch.ops.kern.mla_decode.default(q)


def flash_mla_sparse_fwd(q):
    return torch.ops.kern.sparse_fwd.default(q)
