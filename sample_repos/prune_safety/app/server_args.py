from dataclasses import dataclass

DEVICE_CHOICES = ["cuda", "npu"]


@dataclass
class ServerArgs:
    backend: str = "cuda"

    def __post_init__(self):
        if self.backend == "auto":
            self.backend = "npu"
