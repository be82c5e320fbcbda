class WeightsMapper:
    def __init__(self, prefix):
        self.prefix = prefix


def maybe_prefix(name):
    return name


def unused_helper():
    return 0
