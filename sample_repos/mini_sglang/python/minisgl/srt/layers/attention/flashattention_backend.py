from minisgl.srt.layers.attention.base_attn_backend import AttentionBackend


class FlashAttentionBackend(AttentionBackend):
    def __init__(self, runner, fa_impl_ver=3):
        self.fa_impl_ver = fa_impl_ver

    def forward(self, sampler):
        from mini_kernel.flash_attn import flash_attn_fwd

        return flash_attn_fwd(sampler, None, None, 1.0)
