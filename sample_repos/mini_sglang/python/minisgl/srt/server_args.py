import dataclasses

from mini_kernel.flash_attn import is_fa3_supported

ATTENTION_BACKEND_CHOICES = ["triton", "fa3", "flashmla", "ascend"]


@dataclasses.dataclass
class ServerArgs:
    model_path: str = "deepseek-ai/DeepSeek-V2-Lite"
    attention_backend: str = "fa3" if is_fa3_supported() else "triton"
    device: str = "cuda"


def print_deprecated_warning(message):
    print(message)
