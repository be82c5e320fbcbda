from mini_kernel import flash_mla

from minisgl.srt.layers.attention.base_attn_backend import AttentionBackend


class FlashMLABackend(AttentionBackend):
    def __init__(self, runner):
        self.runner = runner

    def forward(self, sampler):
        metadata = flash_mla.get_mla_metadata(self.runner, 16)
        return flash_mla.mla_decode(sampler, metadata, None, 1.0)
