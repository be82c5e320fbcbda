"""Operator groups: importing this package imports every group it lists."""

from importlib import import_module

_GROUPS = (
    "alpha",
    "beta",
)

for _group in _GROUPS:
    import_module(f"{__name__}.{_group}")

del import_module, _group

__all__ = list(_GROUPS)
