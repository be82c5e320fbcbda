from enum import Enum


class Backend(Enum):
    FLASH_ATTN = "app.attention.flash_attn.FlashBackend"
    ROCM_ATTN = "app.attention.rocm_attn.RocmBackend"
