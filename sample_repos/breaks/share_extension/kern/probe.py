def is_rocm():
    return False


def is_cpu():
    return False
