"""Quantization ops looked up by name: the whole torch.ops.macro_quant namespace is read."""

import torch

quant_ops = torch.ops.macro_quant


def run_quant(name, *args):
    return getattr(quant_ops, name)(*args)
