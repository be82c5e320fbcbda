from app.platform import is_npu

USE_NPU = is_npu()
