from minisgl.srt.utils.common import get_device_name, is_cuda
from mini_kernel import gelu_and_mul, topk_softmax
from torch import nn


class LlamaForCausalLM(nn.Module):  # the framework calls forward()
    def __init__(self, config):
        self.on_gpu = is_cuda()

    def forward(self, x):
        gelu_and_mul(x, x)
        topk_softmax(x, x)
        return x


EntryClass = LlamaForCausalLM
