from enum import Enum


class Backend(Enum):
    FLASH_ATTN = "app.attention.flash_attn.FlashBackend"
    CPU_ATTN = "app.attention.cpu_attn.CPUAttentionBackend"
    ROCM_AITER_MLA = "app.attention.mla.rocm_aiter_mla.AiterMLABackend"

    def get_path(self):
        return self.value
