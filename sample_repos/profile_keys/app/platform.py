def is_npu():
    return False


def is_fast():
    return True


def is_cpu():
    return False
