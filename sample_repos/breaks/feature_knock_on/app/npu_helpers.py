def npu_init():
    from app.npu_backend import NpuBackend

    return NpuBackend()
