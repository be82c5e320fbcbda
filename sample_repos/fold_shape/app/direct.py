from app.platform import is_npu

if is_npu():
    BACKEND = "npu"
