def shift(x):
    return x + 1
