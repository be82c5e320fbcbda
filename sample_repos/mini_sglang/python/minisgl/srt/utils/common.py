import functools


@functools.lru_cache
def is_cuda():
    return True


def is_npu():
    return False


def get_device_name():
    return "cuda:0"


def unused_helper(x):
    from minisgl.srt.utils.legacy_only import legacy_transform

    return legacy_transform(x)


_is_npu = is_npu()
