def bgmv_expand(x):
    return x
