def npu_gemm(x):
    return x
