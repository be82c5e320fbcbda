"""Cache stage helpers: pickles whose integers and strings are shared across files once loaded.

Every file's facts are pickled on their own (extraction workers, the facts cache), so the same
line number or name (``torch``, ``self``, a scope) loaded from two files' pickles would be two
objects -- and pickle never shares integers at all, not even within one file: the largest
trees' facts hold about 2.6 million integer objects but 93,000 distinct values, and a million
strings of 175,000. :func:`dumps` writes each integer (outside CPython's own small-integer
cache) and each string as a *persistent id*; :func:`loads` resolves it through one table of
the process (:data:`_SHARED`), so equal values load as one object. The table holds each value
once (a few MB); a pickle written by plain :func:`pickle.dumps` loads the same way. Within one
dump, equal immutable parts a value's ``__reduce__`` merges in :func:`equal_values` (a file's
line tuples, condition trees) are written once, so they load as one object too.
"""

from __future__ import annotations

import io
import pickle
from typing import Protocol, TypeVar

_Key = TypeVar("_Key", str, int, frozenset[str])


class Writable(Protocol):
    """Where a pickle goes: a binary file, or anything with its ``write``."""

    def write(self, data: bytes, /) -> int: ...


class _Shared(dict[object, object]):
    """Each value once: looking one up returns the first equal one stored."""

    def __missing__(self, key: object) -> object:
        self[key] = key
        return key


# The process's shared integers and strings (only ever grows: bounded by distinct values).
_SHARED = _Shared()


# the equal-value table of each dump in progress (innermost last): see :func:`equal_values`
_DUMPS: list[dict[object, object]] = []


def equal_values() -> dict[object, object] | None:
    """Within a :class:`SharingPickler` dump, its equal-value table, else None. A value's
    ``__reduce__`` hands its immutable parts (tuples, frozen facts) through it
    (``table.setdefault(part, part)``: the first equal part the dump met), so equal parts of
    one file's facts -- a line tuple, a condition tree -- are one object, written once and
    loaded once."""
    return _DUMPS[-1] if _DUMPS else None


class SharingPickler(pickle.Pickler):
    """A pickler writing integers above CPython's small-int cache, and strings, as
    persistent ids that :func:`loads` shares (pickle still writes a repeated string once),
    and equal immutable parts once (:func:`equal_values`)."""

    def dump(self, obj: object, /) -> None:
        _DUMPS.append({})
        try:
            super().dump(obj)
        finally:
            _DUMPS.pop()

    def persistent_id(self, obj: object) -> object | None:
        kind = type(obj)
        if kind is str or (kind is int and not -5 <= obj <= 256):  # type: ignore[operator]
            return obj
        return None


def shared(value: _Key) -> _Key:
    """The process's one string (or integer) equal to ``value``: the object :func:`loads`
    gives for it (graph node ids made by a scan and read from the edge memo are one). Also
    a set of strings a graph's many records each hold (the gated method names of a build:
    ``analyzer.graph.python``), so that equal sets from every build, worker and stored memo
    are one object."""
    return _SHARED[value]  # type: ignore[return-value]


def dump(value: object, file: Writable) -> None:
    """Pickle ``value`` into ``file`` (:class:`SharingPickler`, the highest protocol)."""
    SharingPickler(file, protocol=pickle.HIGHEST_PROTOCOL).dump(value)


def dumps(value: object) -> bytes:
    """``value`` pickled with its integers and strings as shared ids."""
    out = io.BytesIO()
    dump(value, out)
    return out.getvalue()


def load(file: io.BytesIO) -> object:
    """Unpickle the next pickle of ``file`` (a file of several pickles in turn: one call
    each, as each was dumped by a pickler of its own); its integers and strings are the
    process's shared ones."""
    unpickler = pickle.Unpickler(file)
    unpickler.persistent_load = _SHARED.__getitem__  # type: ignore[method-assign]
    return unpickler.load()


def loads(data: bytes) -> object:
    """Unpickle ``data``; its integers and strings are the process's shared ones."""
    return load(io.BytesIO(data))
