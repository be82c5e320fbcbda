from app.platform import is_cuda

if is_cuda():
    KERNELS = ("gemm",)
