def legacy_transform(x):
    return x
