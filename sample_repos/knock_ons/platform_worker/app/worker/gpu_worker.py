class GPUWorker:
    pass
