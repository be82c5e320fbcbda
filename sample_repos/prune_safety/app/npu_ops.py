def npu_norm(x):
    return x
