from app.npu_backend import NpuBackend


def check():
    return NpuBackend()
