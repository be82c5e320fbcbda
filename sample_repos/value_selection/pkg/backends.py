from enum import Enum


class A2ABackend(Enum):
    NONE = "none"
    DEEPEP = "deepep"
    NPU_FUSE = "npu_fuse"

    def is_deepep(self):
        return self == A2ABackend.DEEPEP

    def is_npu_fuse(self):
        return self == A2ABackend.NPU_FUSE


def get_backend():
    return A2ABackend("none")
