class NpuBackend:
    pass
