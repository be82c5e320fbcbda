import importlib

from dyn.notes import describe

BACKENDS = {
    "fast": "dyn.backends.fast",
    "slow": "dyn.backends.slow",
}


def main(name: str = "fast") -> str:
    module = importlib.import_module(BACKENDS[name])
    return describe() + module.run()
