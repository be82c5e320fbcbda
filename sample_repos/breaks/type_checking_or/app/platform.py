def is_rocm():
    return False
