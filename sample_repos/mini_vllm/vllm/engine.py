from vllm.models.registry import load_model_cls
from vllm.platforms import resolve_current_platform


class LLM:
    def __init__(self, arch: str) -> None:
        self.platform = resolve_current_platform()
        self.model = load_model_cls(arch)()

    def generate(self, x):
        return self.model.forward(x)
