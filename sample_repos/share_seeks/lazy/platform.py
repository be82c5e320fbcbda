def is_accel():
    return False


def is_turbo():
    return False
