import os


def is_xpu() -> bool:
    return os.environ.get("DEVICE") == "xpu"


def is_cpu() -> bool:
    return os.environ.get("DEVICE") == "cpu"


def is_rocm() -> bool:
    return os.environ.get("DEVICE") == "rocm"
