import importlib
import pkgutil

import lazy.plugins


def load_model(name):
    for info in pkgutil.iter_modules(lazy.plugins.__path__):
        importlib.import_module(f"lazy.plugins.{info.name}")
    module = importlib.import_module(f"lazy.models.{name}")
    return module.Model(), importlib.import_module("lazy.util.strings").fmt(name)
