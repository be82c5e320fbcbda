import torch


def flash_mla_decode(q):
    import vllm._flashmla_C  # noqa: F401

    return torch.ops._flashmla_C.decode(q)
