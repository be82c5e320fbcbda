class RocmAttentionBackend:
    name = "ROCM_ATTN"
