from enum import Enum


class Backend(Enum):
    CUDA = "cuda"
    NPU = "npu"

    def is_npu_backend(self):
        return self in (Backend.NPU,)  # a one-member tuple: no display rule removes it
