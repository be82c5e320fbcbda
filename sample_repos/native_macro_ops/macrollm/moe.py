"""MoE routing (no served model uses it)."""

import torch

import macrollm._moe_C  # noqa: F401


def topk_softmax(topk_weights, topk_indices, gating_output):
    torch.ops._moe_C.topk_softmax(topk_weights, topk_indices, gating_output)
