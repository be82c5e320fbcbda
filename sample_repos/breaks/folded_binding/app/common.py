def fast_topk(x):
    return sorted(x)
