import importlib
import os
import pkgutil


class ComponentLoader:
    registry = {}

    @classmethod
    def ensure_registered(cls):
        package_dir = os.path.dirname(__file__)
        for _, name, _ in pkgutil.iter_modules([package_dir]):
            if name != "component_loader":
                importlib.import_module(f".{name}", package=__package__)
