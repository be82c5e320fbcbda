def is_npu():
    return False
