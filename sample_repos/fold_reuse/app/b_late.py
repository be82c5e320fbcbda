from app.flags import USE_NPU

if USE_NPU:
    import app.npu_ops  # noqa: F401
