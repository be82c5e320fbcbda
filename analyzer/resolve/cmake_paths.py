"""Resolve stage, CMake: the tree's paths as an evaluation reads them, every answer recorded.

The CMake evaluator (``analyzer.resolve.cmake``) reads the set of the tree's paths in two
ways only: the paths a ``file(GLOB)`` pattern matches, and whether a target's source is in the
tree. :class:`PathReads` answers both and records each answer. An evaluation is a function of
the CMake facts, the forced options and these answers alone, so under another set of paths
that gives the same answer to every recorded read it is the same evaluation, step for step,
with the same project (:meth:`Reads.hold_for`): the build a plan leaves differs from the
original mostly in files deleted that the CMake files never asked about (headers, Python, a
kernel whose CMake lines go too), and ``analyzer.resolve.tree.evaluate_cached`` reuses the
project instead of evaluating again (early cut-off on the answers read, as salsa's).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass


class PathReads:
    """``files`` as the evaluator reads them: :meth:`glob` and ``in``, each answer kept."""

    def __init__(self, files: Collection[str]):
        self._files = files
        self._globs: dict[tuple[str, bool], tuple[str, ...]] = {}
        self._members: dict[str, bool] = {}

    def glob(self, pattern: str, recurse: bool) -> tuple[str, ...]:
        """The paths ``pattern`` matches (``file(GLOB_RECURSE)`` with ``recurse``), sorted."""
        key = (pattern, recurse)
        found = self._globs.get(key)
        if found is None:
            found = self._globs[key] = _matching(self._files, pattern, recurse)
        return found

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        there = self._members.get(path)
        if there is None:
            there = self._members[path] = path in self._files
        return there

    def reads(self) -> Reads:
        """Every answer given so far."""
        return Reads(tuple(sorted(self._globs.items())), tuple(sorted(self._members.items())))


@dataclass(frozen=True)
class Reads:
    """The answers an evaluation read: (pattern, recurse) -> the paths matched, path -> in
    the tree."""

    globs: tuple[tuple[tuple[str, bool], tuple[str, ...]], ...]
    members: tuple[tuple[str, bool], ...]

    def hold_for(self, files: Collection[str] | PathReads) -> bool:
        """Whether ``files`` gives every one of these answers (asked through a
        :class:`PathReads`, each glob is matched once however many kept reads ask it)."""
        answers = files if isinstance(files, PathReads) else PathReads(files)
        return all((path in answers) == there for path, there in self.members) and all(
            answers.glob(pattern, recurse) == found for (pattern, recurse), found in self.globs)


def _matching(files: Collection[str], pattern: str, recurse: bool) -> tuple[str, ...]:
    rx = glob_regex(pattern, recurse)
    return tuple(sorted(f for f in files if rx.match(f)))


def glob_regex(pattern: str, recurse: bool) -> re.Pattern[str]:
    def tr(part: str) -> str:
        out = []
        for ch in part:
            out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
        return "".join(out)

    if not recurse:
        return re.compile("^" + tr(pattern) + "$")
    head, _, tail = pattern.rpartition("/")
    prefix = tr(head) + "/" if head else ""
    return re.compile("^" + prefix + "(?:.*/)?" + tr(tail) + "$")
