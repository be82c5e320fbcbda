from mini_kernel import flash_mla

from minisgl.srt.layers.attention.base_attn_backend import AttentionBackend


class FlashMLABackend(AttentionBackend):
    def __init__(self, runner):
        self.runner = runner

    def forward(self, sampler):
        return flash_mla.flash_mla_with_kvcache()
