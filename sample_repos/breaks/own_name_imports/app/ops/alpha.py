def scale(x):
    return 2 * x
