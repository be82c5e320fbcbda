"""Notes for operators: the fast path lives in dyn.backends.fast and is the default."""


def describe() -> str:
    return "backend: "
