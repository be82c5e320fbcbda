class FlashAttentionBackend:
    name = "FLASH_ATTN"


class FlashAttnMLABackend:
    name = "FLASH_ATTN_MLA"
