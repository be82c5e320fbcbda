from app.dispatch import flash_attn_varlen


class FlashAttentionBackend:
    def __init__(self, runner, fa_impl_ver=3):
        self.runner = runner
        self.fa_impl_ver = fa_impl_ver
        if self.fa_impl_ver == 4:
            from app.fa4_kernels import fa4_varlen

            self.kernel = fa4_varlen

    def forward(self, q):
        return flash_attn_varlen(q, ver=self.fa_impl_ver)
