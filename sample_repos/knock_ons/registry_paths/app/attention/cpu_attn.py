class CPUAttentionBackend:
    pass
