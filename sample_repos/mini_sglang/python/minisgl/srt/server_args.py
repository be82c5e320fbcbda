import dataclasses

ATTENTION_BACKEND_CHOICES = ["triton", "fa3", "flashmla", "ascend"]


@dataclasses.dataclass
class ServerArgs:
    model_path: str = "deepseek-ai/DeepSeek-V2-Lite"
    attention_backend: str = "triton"
    device: str = "cuda"


def print_deprecated_warning(message):
    print(message)
