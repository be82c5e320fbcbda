import importlib

_TEXT_GENERATION_MODELS = {
    "DeepseekV2ForCausalLM": ("deepseek_v2", "DeepseekV2ForCausalLM"),
    "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),
    "MistralForCausalLM": (
        "llama",
        "LlamaForCausalLM",
    ),
}


def load_model_cls(arch: str) -> type:
    module, cls = _TEXT_GENERATION_MODELS[arch]
    return getattr(importlib.import_module(f"vllm.models.{module}"), cls)
