def fast_pick(x):
    return x


def slow_pick(x):
    return -x
