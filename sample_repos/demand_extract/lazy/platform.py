def is_accel():
    return False
