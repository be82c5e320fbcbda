def is_cuda():
    return True


def is_npu():
    return False


def is_cpu():
    return False
