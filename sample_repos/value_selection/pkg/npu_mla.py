def npu_forward():
    return "npu"


def npu_prepare():
    return None
