from enum import Enum

CHOICES = ["cuda", "npu"]


class Kind(Enum):
    CUDA = "cuda"
    NPU = "npu"


class Args:
    def __init__(self, device):
        self.device = device
