import importlib

from dyn.notes import describe

BACKENDS = {
    "fast": "dyn.backends.fast",
    "slow": "dyn.backends.slow",
}


def main(name: str = "fast", plugin: str = "alpha", codec: str = "json") -> str:
    module = importlib.import_module(BACKENDS[name])
    return describe() + module.run() + load_plugin(plugin) + encode(codec)


def load_plugin(name: str) -> str:
    return importlib.import_module(f"dyn.plugins.{name}").handle()


def encode(kind: str) -> str:
    return importlib.import_module("dyn.codecs.c_" + kind).encode()
