import importlib

from app.attention.registry import Backend
from app.config import AttentionConfig


def serve():
    config = AttentionConfig()
    path = Backend[config.attention_backend].get_path()
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)
