def is_npu():
    return False


def is_rocm():
    return False
