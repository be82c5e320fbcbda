"""Shared value types handed between pipeline stages.

Every stage takes and returns plain frozen dataclasses from here (or from the extractor
module that owns a language's facts), so each stage can be tested, cached and run in
parallel on its own. Facts are serialisable: ``to_jsonable`` / ``from_jsonable`` turn any
of them into JSON-ready values and back.

The string vocabularies that travel between stages are typed here, once: ``Language`` (a
file's), and the plan's ``DeletionKind``, ``DeletionCategory`` and ``FoldRewrite`` (the
manifest's ``kind``, ``category`` and ``rewrite``; ``outputs/manifest.schema.json`` lists the
same values). Graph node and edge kinds live with the node ids, in ``analyzer/nodes.py``.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypeVar

T = TypeVar("T")

# what a discovered file is parsed as (discover/walk.py decides, by name)
Language: TypeAlias = Literal["python", "cuda", "cmake"]

# how the codemod applies a deletion
DeletionKind: TypeAlias = Literal[
    "delete_file",  # the whole file
    "delete_range",  # whole statements (Python) or lines (any other file)
    "remove_import_names",  # names of one import statement
    "remove_list_element",  # one element of a collection literal (a registry entry)
    "fold_branch",  # a branch the profile decides: see FoldRewrite
]
# what a deletion removes, for the reports (SARIF rule ids, summaries)
DeletionCategory: TypeAlias = Literal[
    "python-file", "python-symbol", "python-import", "python-branch", "registry-entry",
    "test-file", "native-file", "cmake-file", "cmake-block", "op-registration",
    "python-type-test", "test-entry",
]
# how a folded branch keeps the code valid (decide/guards.py chooses, codemod applies)
FoldRewrite: TypeAlias = Literal[
    "delete",  # the whole statement goes
    "delete_clause",  # elif/else clauses go, the statement stays
    "promote_elif",  # the dead leading clauses go, the first live elif becomes the if
    "unwrap_if",  # only the if body stays, dedented
    "unwrap_else",  # only the else body stays, dedented
    "try_unwrap",  # a try/except ImportError folded onto one of its bodies
    "ifexp",  # a conditional expression replaced by its live arm
    "compare",  # a comparison with a dropped enum member replaced by its value (names: the
    #            comparison as written, "False"/"True", the member's chain as written)
]
# rewrites of an expression inside a line, not of whole lines
EXPRESSION_REWRITES = frozenset({"ifexp", "compare"})


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
    language: Language
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
    return typing.cast(T, _build(cls, data))


def _build(tp: Any, data: Any) -> Any:
    origin = typing.get_origin(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
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
    language: Language


@dataclass(frozen=True)
class Deletion:
    kind: DeletionKind
    path: str
    sha256: str
    lines: int
    reason: str
    start_line: int | None = None
    end_line: int | None = None
    symbol: str | None = None
    names: tuple[str, ...] = ()
    category: DeletionCategory | Literal[""] = ""
    feature: str = ""  # the dropped feature this deletion belongs to, if any
    # the dropped features it goes with (analyzer.plan.feature_sets): ``features``, the
    # shares that hold it (the plan keeping one of them keeps it); it goes once all of
    # ``features`` and ``after`` are applied (``after``: what it needs is in those features'
    # shares too), or once any of ``with_features`` is (dead code a feature's deletion takes
    # along); none: other dead code, with the whole plan only
    features: tuple[str, ...] = ()
    with_features: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    # folded branches: how the codemod keeps the code valid
    rewrite: FoldRewrite | Literal[""] = ""
    statement: tuple[int, int] | None = None  # folded branches: the whole statement
    keep: tuple[int, int] | None = None  # folded branches: the surviving body


def goes_with(features: tuple[str, ...] | list[str], with_features: tuple[str, ...] | list[str],
              applied: frozenset[str] | None,
              after: tuple[str, ...] | list[str] = ()) -> bool:
    """A deletion (its ``features``, ``with_features``, ``after``) is carried out once the
    dropped features ``applied`` are (None: the whole plan): all of ``features`` and
    ``after``, or any of ``with_features``; one with none is other dead code, for the whole
    plan only. The one rule the plan (``analyzer.plan.feature_sets``) and the codemod
    (``apply --feature``) share."""
    if applied is None:
        return True
    if features or after:
        return set(features) <= applied and set(after) <= applied
    return bool(applied.intersection(with_features))


BEHAVIOUR_MARKS = ("a behaviour decision", "selects dropped key")


def is_behaviour_decision(d: Deletion) -> bool:
    """A deletion that changes what live code does on the target, not only what it contains:
    a clause or conditional arm that selected a dropped key folded away (another choice runs
    instead), or a test/example that selected one. The reports list them as their own group."""
    return any(m in d.reason for m in BEHAVIOUR_MARKS)


_IFEXP_REASON = re.compile(r"\.\.\. if (.*) else \.\.\.: folds to (True|False)")


def ifexp_condition(reason: str) -> str | None:
    """The condition a folded conditional expression's reason names (``... if X else ...:
    folds to V``), to tell it from others on its lines; None when the reason names none."""
    match = _IFEXP_REASON.search(reason)
    return match.group(1) if match else None


def ifexp_keeps_body(keep: tuple[int, int] | None, dead: tuple[int, int], body: tuple[int, int],
                     orelse: tuple[int, int], reason: str) -> bool | None:
    """Which arm of a folded conditional expression stays (lines of its ``body`` and
    ``orelse`` arms; ``keep`` and ``dead``: the deletion's): True the body (``x if ...``),
    False the ``else`` arm, None when neither the lines nor the reason tell. Arms on one
    line are told by the value the reason states. The one rule the codemod and the check's
    simulation share."""
    if keep is not None and body != orelse:
        if tuple(keep) == body and dead == orelse:
            return True
        if tuple(keep) == orelse and dead == body:
            return False
    match = _IFEXP_REASON.search(reason)
    return match.group(2) == "True" if match else None


def fold_lines(rewrite: str, start: int, end: int, statement: tuple[int, int] | None,
               keep: tuple[int, int] | None) -> tuple[tuple[int, int], ...]:
    """The whole lines the codemod removes for a folded branch of lines ``start``-``end``:
    those, and for ``unwrap_if`` the ``if`` header above the kept body too (the region
    starts at the first dead clause, but the header goes with the unwrapping). A header
    sharing its line with the body (``if c: x``) is not a whole line."""
    if rewrite == "unwrap_if" and statement is not None and keep is not None \
            and keep[0] > statement[0]:
        return ((statement[0], keep[0] - 1), (start, end))
    return ((start, end),)


def deletion_lines(d: Deletion) -> tuple[tuple[int, int], ...]:
    """:func:`fold_lines` of a deletion with lines: what the plan's views of the pruned tree
    count as gone."""
    start = d.start_line or 0
    return fold_lines(d.rewrite, start, d.end_line or start, d.statement, d.keep)


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

    def spans(self) -> tuple[tuple[int, int], ...]:
        """The ranges, in order (equal for equal sets of ranges added)."""
        return tuple(sorted(self._raw))

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
