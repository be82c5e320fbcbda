from app.flags import USE_NPU

if USE_NPU:
    DEVICE = "npu"
else:
    DEVICE = "cuda"
