def is_npu():
    return False


def is_fast():
    return True
