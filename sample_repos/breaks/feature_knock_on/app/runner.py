from app.accel_helpers import accel_init
from app.npu_helpers import npu_init
from app.platform import is_npu, is_rocm


def run():
    if is_npu():
        npu_init()
    if is_npu() or is_rocm():
        accel_init()
    return 1
