def dequant_k_cache(x):
    return x


def _helper():
    return 0
