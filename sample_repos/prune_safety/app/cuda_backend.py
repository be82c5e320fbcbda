class CudaBackend:
    pass
