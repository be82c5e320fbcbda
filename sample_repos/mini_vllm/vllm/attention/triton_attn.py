class TritonAttentionBackend:
    name = "TRITON_ATTN"


class TritonMLABackend:
    name = "TRITON_MLA"
