def backend_path(device):
    if device == "rocm":
        return "app.attention.rocm_aiter_fa.AiterFlashAttentionBackend"
    return "app.attention.flash_attn.FlashBackend"
