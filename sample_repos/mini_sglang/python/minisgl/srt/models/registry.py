import importlib
import pkgutil
from functools import lru_cache


class _ModelRegistry:
    def __init__(self):
        self.models = {}

    def register(self, package_name):
        self.models.update(import_model_classes(package_name))

    def resolve(self, arch):
        return self.models[arch]


@lru_cache()
def import_model_classes(package_name):
    classes = {}
    package = importlib.import_module(package_name)
    for _, name, ispkg in pkgutil.iter_modules(package.__path__, package_name + "."):
        if ispkg:
            continue
        module = importlib.import_module(name)
        if hasattr(module, "EntryClass"):
            classes[module.EntryClass.__name__] = module.EntryClass
    return classes


ModelRegistry = _ModelRegistry()
ModelRegistry.register("minisgl.srt.models")
