class NpuMoE:
    pass
