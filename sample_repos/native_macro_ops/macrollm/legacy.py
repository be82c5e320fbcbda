"""The old pybind11 extension's wrapper (nothing imports this module any more)."""

from macrollm import _legacy_C


def old_sum(a, b):
    return _legacy_C.old_sum(a, b)
