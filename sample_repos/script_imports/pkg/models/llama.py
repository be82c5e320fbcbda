from transformers import LlamaConfig


class LlamaModel:
    config_class = LlamaConfig

    def forward(self, fn):
        return fn
