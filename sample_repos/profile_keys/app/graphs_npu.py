class NpuGraphs:
    pass
