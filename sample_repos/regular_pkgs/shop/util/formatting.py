def fmt(x):
    return str(x)
