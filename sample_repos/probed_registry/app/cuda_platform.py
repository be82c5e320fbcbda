class CudaPlatform:
    device_type = "cuda"
