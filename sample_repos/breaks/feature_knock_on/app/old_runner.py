from app.npu_helpers import npu_init


def old_run():
    return npu_init()
