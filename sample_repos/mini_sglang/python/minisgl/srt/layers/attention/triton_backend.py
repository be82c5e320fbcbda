from minisgl.srt.layers.attention.base_attn_backend import AttentionBackend


class TritonAttnBackend(AttentionBackend):
    def __init__(self, runner):
        self.runner = runner

    def forward(self, sampler):
        return "triton"
