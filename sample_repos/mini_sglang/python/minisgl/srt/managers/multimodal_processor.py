import importlib
import pkgutil

PROCESSOR_MAPPING = {}


def import_processors(package_name):
    package = importlib.import_module(package_name)
    for _, name, ispkg in pkgutil.iter_modules(package.__path__, package_name + "."):
        if not ispkg:
            module = importlib.import_module(name)
            for arch in getattr(module, "ARCHS", []):
                PROCESSOR_MAPPING[arch] = module
