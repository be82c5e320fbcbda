from minisgl.srt.utils.common import is_cuda


def old_device_check():
    return is_cuda()
