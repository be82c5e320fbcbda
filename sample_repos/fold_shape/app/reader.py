from app.conf import flags

if flags.USE_NPU:
    DEVICE = "npu"
else:
    DEVICE = "cuda"
