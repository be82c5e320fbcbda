"""Architecture -> (module, function) of app.models, loaded by computed name."""

import importlib

MODELS = {
    "Llama": ("llama", "llama"),
    "Tiny": ("sub.tiny", "tiny"),
}


def load(name):
    module, attr = MODELS[name]
    return getattr(importlib.import_module(f"app.models.{module}"), attr)
