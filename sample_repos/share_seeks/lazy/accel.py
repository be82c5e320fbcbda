def fast_forward(x):
    return x * 2
