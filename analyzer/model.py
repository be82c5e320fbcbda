"""Shared value types handed between pipeline stages.

Every stage takes and returns plain frozen dataclasses from here (or from the extractor
module that owns a language's facts), so each stage can be tested, cached and run in
parallel on its own. Facts are serialisable: ``to_jsonable`` / ``from_jsonable`` turn any
of them into JSON-ready values and back.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class ParseProblem:
    """Something a file made the extractor notice: syntax errors, bad encoding, I/O errors."""

    path: str
    line: int
    kind: str  # "syntax-error" | "invalid-utf8" | "binary" | "unreadable" | "symlink-loop" | ...
    message: str


@dataclass(frozen=True)
class SourceFile:
    """One discovered file: path relative to the scanned root (POSIX), language, size, and
    the stat signature (size, mtime_ns, ctime_ns, inode) that tells an unchanged file."""

    path: str
    language: str  # "python" | "cuda" | "cmake"
    size: int
    stat_key: tuple[int, ...] = field(default=(), compare=False, repr=False)


def to_jsonable(value: Any) -> Any:
    """Turn nested frozen dataclasses/tuples into dicts/lists fit for ``json.dumps``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    return value


def from_jsonable(cls: type[T], data: Any) -> T:
    """Rebuild a dataclass written by :func:`to_jsonable` (inverse for the types used here)."""
    return _build(cls, data)


def _build(tp: Any, data: Any) -> Any:
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(**{f.name: _build(hints[f.name], data[f.name]) for f in dataclasses.fields(tp)})
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_build(args[0], v) for v in data)
        return tuple(_build(a, v) for a, v in zip(args, data, strict=True))
    if origin is dict:
        _key_t, val_t = typing.get_args(tp)
        return {k: _build(val_t, v) for k, v in data.items()}
    if origin in (typing.Union, types.UnionType):
        if data is None:
            return None
        non_none = [a for a in typing.get_args(tp) if a is not type(None)]
        return _build(non_none[0], data)
    return data


# -- the plan: what the plan stage hands the outputs and the codemod ----------------------
@dataclass(frozen=True)
class FileInfo:
    path: str
    sha256: str
    lines: int
    language: str


@dataclass(frozen=True)
class Deletion:
    kind: str  # "delete_file" | "delete_range" | "remove_import_names"
    path: str
    sha256: str
    lines: int
    reason: str
    start_line: int | None = None
    end_line: int | None = None
    symbol: str | None = None
    names: tuple[str, ...] = ()
    # python-file | python-symbol | python-import | native-file | cmake-file | cmake-block |
    # op-registration | python-branch | test-file
    category: str = ""
    feature: str = ""  # the dropped feature this deletion belongs to, if any
    rewrite: str = ""  # folded branches: how the codemod keeps the code valid
    statement: tuple[int, int] | None = None  # folded branches: the whole statement
    keep: tuple[int, int] | None = None  # folded branches: the surviving body


@dataclass(frozen=True)
class Kept:
    """Something dead that the plan deliberately does not delete, and why."""

    path: str
    line: int
    what: str
    reason: str


@dataclass
class Plan:
    deletions: list[Deletion] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)

    def removed_lines(self) -> int:
        return sum(d.lines for d in self.deletions)


class Ranges:
    """Line ranges of one file, asking "is [s, e] inside one of them?" in O(log n)."""

    def __init__(self) -> None:
        self._raw: list[tuple[int, int]] = []
        self._starts: list[int] = []
        self._reach: list[int] = []  # max end of ranges[0..i]

    def add(self, start: int, end: int) -> None:
        self._raw.append((start, end))
        self._starts = []

    def covers(self, start: int, end: int) -> bool:
        if not self._raw:
            return False
        if not self._starts:
            self._raw.sort()
            self._starts = [s for s, _ in self._raw]
            reach, best = [], 0
            for _, e in self._raw:
                best = max(best, e)
                reach.append(best)
            self._reach = reach
        i = bisect_right(self._starts, start) - 1
        return i >= 0 and self._reach[i] >= end
