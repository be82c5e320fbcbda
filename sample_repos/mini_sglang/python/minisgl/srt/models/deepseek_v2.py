import os

from minisgl.srt.layers.attention.mla import MultiHeadLatentAttention
from minisgl.srt.utils.common import get_device_name, is_cuda


class DeepseekV2ForCausalLM:
    def __init__(self, config):
        self.attn = MultiHeadLatentAttention(config)
        self.device = get_device_name() if is_cuda() else "cpu"

    def forward(self, x):
        return self.attn(x)


EntryClass = DeepseekV2ForCausalLM
