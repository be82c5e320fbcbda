"""The attention backend: picks kernels by FlashAttention version (imitates vLLM)."""

from fa.utils import fa3_scheduler_metadata, fa4_tile_size, get_flash_attn_version


class FlashAttentionImpl:
    def __init__(self, fa_version=2):
        self.fa_version = fa_version
        self.aot_schedule = get_flash_attn_version() == 3

    @classmethod
    def for_blackwell(cls):
        return cls(fa_version=4)

    def forward(self, batch):
        if self.fa_version == 3:
            return fa3_scheduler_metadata(batch)
        if self.fa_version == 4:
            return fa4_tile_size()
        return batch
