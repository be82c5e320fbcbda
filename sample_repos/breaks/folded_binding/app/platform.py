def is_hip():
    return False


def is_cuda():
    return True
