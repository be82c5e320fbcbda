import importlib

from app.backends.kinds import Backend

BACKENDS = {Backend.FOO: "app.backends.mla.FooBackend"}


def load(kind):
    module, _, cls = BACKENDS[Backend(kind)].rpartition(".")
    return getattr(importlib.import_module(module), cls)
