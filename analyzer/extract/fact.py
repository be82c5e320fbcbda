"""Extract stage: the base of the fact values extraction produces (imports, references,
branches, CMake commands, ops...). Millions of them live through a scan and every one is
pickled into the facts cache, so each is a slotted frozen dataclass (no ``__dict__`` per
value) that pickles as its class and its field values (loaded by calling the class: faster
than restoring slots one by one), its string fields interned: a name a file spells many times
(``torch``, ``self``, a module's path) is one string in the file's pickle, and one object
once loaded, not one per fact (a sixth less memory for the facts of a tree)."""

from __future__ import annotations

import dataclasses
from sys import intern
from typing import Any

_INIT_FIELDS: dict[type, tuple[str, ...]] = {}


class Fact:
    """Mixin of the ``@dataclass(frozen=True, slots=True)`` fact classes."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        cls = type(self)
        names = _INIT_FIELDS.get(cls)
        if names is None:
            names = _INIT_FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                                              if f.init)
        return cls, tuple([intern(v) if type(v) is str else v
                           for v in [getattr(self, n) for n in names]])
