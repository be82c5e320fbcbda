"""Gitignore pattern matching for the discover stage (no third-party dependency).

Implements the pattern language of ``gitignore(5)``:

* blank lines and ``#`` comments are skipped; ``\\#`` and ``\\!`` start a literal ``#``/``!``;
* trailing spaces are dropped unless escaped (``foo\\ ``); a trailing CR is dropped;
* ``!pattern`` re-includes what an earlier pattern excluded (last match wins);
* a trailing ``/`` makes the pattern match directories only;
* a leading or middle ``/`` anchors the pattern to the directory holding the ``.gitignore``;
  otherwise it matches a name at any depth below that directory;
* ``*`` and ``?`` never match ``/``; ``[...]`` / ``[!...]`` are character classes;
* ``**/x`` matches ``x`` at any depth, ``x/**`` everything inside ``x``, ``a/**/b`` zero or
  more directories between; any other ``**`` acts like ``*``.

Patterns are compiled to regular expressions once. Consecutive rules with the same polarity and
the same dir-only flag are fused into one alternation, so a ``.gitignore`` of a few hundred lines
costs a handful of regex calls per path. The git rule that a file inside an excluded directory
cannot be re-included falls out of the walk in :mod:`analyzer.discover.walk`, which never descends
into an excluded directory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["IgnoreRule", "PatternList", "compile_pattern", "is_ignored", "parse_lines"]


@dataclass(frozen=True)
class IgnoreRule:
    """One compiled pattern line."""

    pattern: str  # the line as written (after trimming), for messages
    regex: str  # matches a path relative to the pattern list's base directory
    negate: bool
    dir_only: bool


def _translate_segment(seg: str) -> str:
    """Translate one path segment of a glob (no ``/`` inside) into a regex fragment."""
    out: list[str] = []
    i, n = 0, len(seg)
    while i < n:
        c = seg[i]
        if c == "\\":
            if i + 1 < n:
                out.append(re.escape(seg[i + 1]))
                i += 2
            else:  # a lone trailing backslash matches nothing in git; treat it literally
                out.append(re.escape(c))
                i += 1
        elif c == "*":
            while i < n and seg[i] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            cls, i = _translate_class(seg, i)
            out.append(cls)
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _translate_class(seg: str, start: int) -> tuple[str, int]:
    """Translate a ``[...]`` class at ``seg[start]``; an unclosed ``[`` is a literal."""
    j = start + 1
    negate = False
    if j < len(seg) and seg[j] in "!^":
        negate = True
        j += 1
    body: list[str] = []
    first = True
    while j < len(seg):
        c = seg[j]
        if c == "]" and not first:
            inner = "".join(body)
            return ("[^/" + inner + "]" if negate else "[" + inner + "]"), j + 1
        if c == "\\" and j + 1 < len(seg):
            body.append("\\" + seg[j + 1])
            j += 2
        else:
            body.append("\\" + c if c in "\\[]^" else c)
            j += 1
        first = False
    return re.escape("["), start + 1


def compile_pattern(line: str) -> IgnoreRule | None:
    """Compile one ``.gitignore`` line; ``None`` for blank lines and comments."""
    line = line.rstrip("\r\n")
    if not line or line.startswith("#"):
        return None
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    if not line:
        return None
    text = line
    negate = False
    if line.startswith("!"):
        negate = True
        line = line[1:]
    elif line.startswith(("\\!", "\\#")):
        line = line[1:]  # literal '!' / '#'
    dir_only = line.endswith("/")
    if dir_only:
        line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    if not line:
        return None
    parts = line.split("/")
    rx: list[str] = [] if anchored else ["(?:.*/)?"]
    need_sep = False
    for i, seg in enumerate(parts):
        last = i == len(parts) - 1
        if seg == "**":
            if last:
                rx.append("/.+" if need_sep else ".*")
            else:
                rx.append("/(?:.*/)?" if need_sep else "(?:.*/)?")
                need_sep = False
            continue
        if not seg:  # "a//b": git collapses nothing here; an empty segment matches nothing
            return IgnoreRule(text, "(?!)", negate, dir_only)
        if need_sep:
            rx.append("/")
        rx.append(_translate_segment(seg))
        need_sep = True
    return IgnoreRule(text, "".join(rx), negate, dir_only)


def parse_lines(lines: Iterable[str]) -> list[IgnoreRule]:
    """Compile every meaningful line of a ``.gitignore`` (or ``info/exclude``) file."""
    rules: list[IgnoreRule] = []
    for line in lines:
        rule = compile_pattern(line)
        if rule is not None:
            rules.append(rule)
    return rules


@dataclass(frozen=True)
class _Block:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


class PatternList:
    """The rules of one ignore file, applying to paths below ``base`` (POSIX, "" = root)."""

    __slots__ = ("_blocks", "base", "rules")

    def __init__(self, base: str, rules: Sequence[IgnoreRule]) -> None:
        self.base = base.strip("/")
        self.rules = tuple(rules)
        blocks: list[_Block] = []
        group: list[IgnoreRule] = []
        for rule in self.rules:
            if group and (group[0].negate, group[0].dir_only) != (rule.negate, rule.dir_only):
                blocks.append(self._fuse(group))
                group = []
            group.append(rule)
        if group:
            blocks.append(self._fuse(group))
        self._blocks = tuple(reversed(blocks))  # last match wins: test the last block first

    @staticmethod
    def _fuse(group: list[IgnoreRule]) -> _Block:
        alternation = "|".join(f"(?:{r.regex})" for r in group)
        return _Block(re.compile(alternation, re.DOTALL), group[0].negate, group[0].dir_only)

    @classmethod
    def from_text(cls, base: str, text: str) -> PatternList:
        return cls(base, parse_lines(text.splitlines()))

    def match(self, path: str, is_dir: bool) -> bool | None:
        """``True`` if excluded, ``False`` if re-included by ``!``, ``None`` if no rule matches.

        ``path`` is relative to the scanned root (POSIX); paths outside ``base`` never match.
        """
        if self.base:
            if not path.startswith(self.base + "/"):
                return None
            path = path[len(self.base) + 1 :]
        for block in self._blocks:
            if block.dir_only and not is_dir:
                continue
            if block.regex.fullmatch(path):
                return not block.negate
        return None

    def __bool__(self) -> bool:
        return bool(self.rules)


def is_ignored(path: str, is_dir: bool, lists: Sequence[PatternList]) -> bool:
    """Decide ``path`` against pattern lists ordered from lowest to highest precedence.

    Deeper ``.gitignore`` files come later in ``lists`` and win over shallower ones; within a
    file the last matching line wins.
    """
    for plist in reversed(lists):
        verdict = plist.match(path, is_dir)
        if verdict is not None:
            return verdict
    return False
