def fast_topk(x):
    return x


def hip_topk(x):
    return x
