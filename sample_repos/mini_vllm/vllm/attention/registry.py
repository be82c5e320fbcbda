import importlib
from enum import Enum


class AttentionBackendEnum(Enum):
    FLASH_ATTN = "vllm.attention.flash_attn.FlashAttentionBackend"
    TRITON_ATTN = "vllm.attention.triton_attn.TritonAttentionBackend"
    FLASH_ATTN_MLA = "vllm.attention.flash_attn.FlashAttnMLABackend"
    TRITON_MLA = "vllm.attention.triton_attn.TritonMLABackend"
    FLASHMLA = "vllm.attention.flashmla.FlashMLABackend"
    ROCM_ATTN = "vllm.attention.rocm_attn.RocmAttentionBackend"

    def get_class(self) -> type:
        module, _, name = self.value.rpartition(".")
        return getattr(importlib.import_module(module), name)
