class WeightsMapper:
    pass


def unused():
    return 1
