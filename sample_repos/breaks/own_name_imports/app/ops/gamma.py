def unused(x):
    return x
