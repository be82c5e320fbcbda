def npu_rms_norm(x):
    return x
