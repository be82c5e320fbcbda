def is_npu():
    return False


def is_cuda():
    return True


def is_sparse(config):
    return bool(config)
