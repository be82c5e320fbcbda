"""Thin wrappers over the common_ops kernels (imitates sgl_kernel/elementwise.py)."""

import torch


def silu_and_mul(out, input):
    torch.ops.mini_kernel.silu_and_mul.default(out, input)


def gelu_and_mul(out, input):
    torch.ops.mini_kernel.gelu_and_mul.default(out, input)


def rmsnorm(output, input, weight, eps=1e-6):
    torch.ops.mini_kernel.rmsnorm.default(output, input, weight, eps)


def fp8_scaled_mm(a, b, scales):
    workspace = torch.ops.mini_kernel.get_workspace_size.default()
    assert workspace > 0
    return torch.ops.mini_kernel.fp8_scaled_mm.default(a, b, scales)


def moe_align(topk_ids, num_experts):
    return torch.ops.mini_kernel.moe_align(topk_ids, num_experts)


def topk_softmax(out, logits):
    torch.ops.mini_kernel.topk_softmax.default(out, logits)
