"""Thin wrappers over the compiled ops (imitates vllm/_custom_ops.py)."""

import torch

import macrollm._C  # noqa: F401  (registers torch.ops._C.* and torch.ops._C_cache_ops.*)
import macrollm._extra_C  # noqa: F401  (registers torch.ops.macro_extra.*)


def rms_norm(out, input, weight, eps):
    torch.ops._C.rms_norm(out, input, weight, eps)


def concat_and_cache_mla(kv_c, k_pe, kv_cache, slot_mapping):
    torch.ops._C_cache_ops.concat_and_cache_mla(kv_c, k_pe, kv_cache, slot_mapping)


def gelu_fast(out, input):
    torch.ops.macro_extra.gelu_fast(out, input)
