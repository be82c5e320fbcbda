"""Extract stage: the base of the fact values extraction produces (imports, references,
branches, CMake commands, ops...). Millions of them live through a scan and every one is
pickled into the facts cache, so each is a slotted frozen dataclass (no ``__dict__`` per
value) that pickles as its class and its field values (loaded by calling the class: faster
than restoring slots one by one), its string fields interned: a name a file spells many times
(``torch``, ``self``, a module's path) is one string in the file's pickle, and one object
once loaded, not one per fact (a sixth less memory for the facts of a tree); its tuples and
fact fields go through :func:`analyzer.util.pickling.canonical`, so equal ones of one file
(line tuples, condition trees) are one object too."""

from __future__ import annotations

import dataclasses
from sys import intern
from typing import Any, ClassVar

from analyzer.util.pickling import canonical

_INIT_FIELDS: dict[type, tuple[str, ...]] = {}


class Fact:
    """Mixin of the ``@dataclass(frozen=True, slots=True)`` fact classes."""

    __slots__ = ()
    # equal values of the class are interchangeable: every field a string, or a tuple of
    # strings or such facts (``True == 1``, so a fact holding a bool, an int or a float
    # could equal one of another meaning)
    exact_equality: ClassVar[bool] = False

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        cls = type(self)
        names = _INIT_FIELDS.get(cls)
        if names is None:
            names = _INIT_FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                                              if f.init)
        return cls, tuple([intern(v) if type(v) is str else canonical(v) if _exact(v) else v
                           for v in [getattr(self, n) for n in names]])


def _exact(value: object) -> bool:
    """Equal values are the same value (what :func:`canonical` may merge): a fact of an
    ``exact_equality`` class, or a non-empty tuple of integers (not bools), strings and
    such facts -- a line tuple, a tuple of names or of condition trees."""
    if type(value) is tuple:
        return bool(value) and all(type(x) is int or type(x) is str
                                   or getattr(x, "exact_equality", False) for x in value)
    return getattr(value, "exact_equality", False) is True
