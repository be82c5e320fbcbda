"""Plan stage, native: what CMake commands say of variables and fetched repositories --
the variable a command defines, the commands mentioning a fetched repository or a variable
derived from it (``<name>_SOURCE_DIR``, variables set from those) -- memoised per set of
CMake facts. The native plan (``analyzer.plan.native``) and the native checks read them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from analyzer.extract.cmake import CMakeCommand, CmakeFacts
from analyzer.resolve.cmake_model import FetchRepo

VAR_REF = re.compile(r"\$\{([A-Za-z0-9_.+\-]+)\}")


_DEFINES_VAR = {"set", "list", "file"}


def defined_var(c: CMakeCommand) -> str | None:
    """The variable a ``set``/``list(APPEND)``/``file(GLOB)`` command defines."""
    if c.name not in _DEFINES_VAR or not c.args:
        return None
    if c.name == "set":
        return c.args[0].value
    if c.name == "list" and len(c.args) > 1 and c.args[0].value.upper() == "APPEND":
        return c.args[1].value
    if c.name == "file" and len(c.args) > 1 and c.args[0].value.upper().startswith("GLOB"):
        return c.args[1].value
    return None


# -- fetched repositories ----------------------------------------------------------------------
def fetch_own_ranges(f: FetchRepo) -> set[tuple[str, int]]:
    """(file, start line) of a fetch's declarations and populate calls."""
    return {(f.file, f.start_line), *((r.file, r.start_line) for r in f.declare_ranges),
            *((r.file, r.start_line) for r in f.populate_ranges)}


def fetch_derived_vars(name: str, commands: dict[str, list[CMakeCommand]],
                       by_name: bool = True) -> set[str]:
    """Variables holding something of fetched repository ``name``: ``<name>_SOURCE_DIR``,
    ``_BINARY_DIR``, ``_POPULATED`` (any case), ``FetchContent_GetProperties`` outputs, and
    variables set from a command mentioning any of those (or, ``by_name``, the repository's
    name: the plan's cautious reading), transitively."""
    derived = {f"{n}_{suffix}" for n in (name, name.lower(), name.upper())
               for suffix in ("SOURCE_DIR", "BINARY_DIR", "POPULATED")}
    word = mention_pattern(name)
    for cmds in commands.values():
        for c in cmds:
            values = [a.value for a in c.args]
            if c.name == "fetchcontent_getproperties" and values[:1] == [name]:
                for key in ("SOURCE_DIR", "BINARY_DIR", "POPULATED"):
                    if key in values[1:-1]:
                        derived.add(values[values.index(key) + 1])
    changed = True
    while changed:
        changed = False
        for cmds in commands.values():
            for c in cmds:
                var = defined_var(c)
                if var is None or var in derived:
                    continue
                if any((by_name and word.search(a.value)) or variable_refs(a.value, derived)
                       for a in c.args[1:]):
                    derived.add(var)
                    changed = True
    return derived


def mention_pattern(name: str) -> re.Pattern[str]:
    """``name`` as a word part, any case (``cutlass`` in ``${CUTLASS_INCLUDE_DIR}``)."""
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", re.IGNORECASE)


def variable_refs(text: str, names: set[str] | frozenset[str]) -> bool:
    return text in names or any(v in names for v in VAR_REF.findall(text))


@dataclass
class _FetchMemo:
    """What fetched repositories' variables and mentions are, for one tree's CMake facts:
    the same from round to round and for every plan share checked, and each a pass (or a
    fixpoint) over every command of the build. ``facts``: the facts of each CMake file,
    held (and compared by identity: a fact object is the same until the tree is read
    again)."""

    facts: dict[str, CmakeFacts] = field(default_factory=dict)
    derived: dict[tuple[str, bool], frozenset[str]] = field(default_factory=dict)
    mentions: dict[tuple[FetchRepo, tuple[str, ...]], list[tuple[str, CMakeCommand]]] = \
        field(default_factory=dict)
    _commands: dict[str, list[CMakeCommand]] | None = None

    def commands(self) -> dict[str, list[CMakeCommand]]:
        """Each file's commands (made when first asked; in the order of the facts first
        given, which the derived variables do not depend on)."""
        if self._commands is None:
            self._commands = {path: list(f.commands) for path, f in self.facts.items()}
        return self._commands


# the memos of the last few sets of CMake facts (the tree's, and the builds plans leave)
_FETCHES: list[_FetchMemo] = []


_FETCH_MEMOS = 4


def _fetch_memo(cmake: Mapping[str, CmakeFacts]) -> _FetchMemo:
    """The memo of these CMake facts (a new one when none of the last ones' is)."""
    for i, memo in enumerate(_FETCHES):
        held = memo.facts
        if len(held) == len(cmake) and all(held.get(p) is f for p, f in cmake.items()):
            _FETCHES.append(_FETCHES.pop(i))
            return memo
    memo = _FetchMemo(dict(cmake))
    _FETCHES.append(memo)
    del _FETCHES[:-_FETCH_MEMOS]
    return memo


def derived_vars(name: str, cmake: Mapping[str, CmakeFacts], by_name: bool = True
                 ) -> frozenset[str]:
    """:func:`fetch_derived_vars` of the commands of ``cmake``, found once per tree (the
    derivation is a fixpoint: the same set whatever the files' order)."""
    memo = _fetch_memo(cmake)
    found = memo.derived.get((name, by_name))
    if found is None:
        found = memo.derived[(name, by_name)] = frozenset(
            fetch_derived_vars(name, memo.commands(), by_name))
    return found


def mentions_of(f: FetchRepo, cmake: Mapping[str, CmakeFacts]
                ) -> list[tuple[str, CMakeCommand]]:
    """:func:`fetch_mentions` of the commands of ``cmake`` (in its files' order), found once
    per tree."""
    memo = _fetch_memo(cmake)
    key = (f, tuple(cmake))
    found = memo.mentions.get(key)
    if found is None:  # (the commands in the order asked: the mentions' order)
        commands = {path: list(facts.commands) for path, facts in cmake.items()}
        found = memo.mentions[key] = fetch_mentions(f, commands, derived_vars(f.name, cmake))
    return found


def fetch_mentions(f: FetchRepo, commands: dict[str, list[CMakeCommand]],
                   derived: frozenset[str] | set[str] | None = None
                   ) -> list[tuple[str, CMakeCommand]]:
    """Commands other than the fetch's own that name it or a variable derived from it. An
    ``include()`` of an in-tree file named like it (``include(cmake/flashmla.cmake)``) names
    the file, not the repository: only a derived variable in it counts."""
    own = fetch_own_ranges(f)
    if derived is None:
        derived = fetch_derived_vars(f.name, commands)
    word = mention_pattern(f.name)
    out = []
    for path, cmds in commands.items():
        for c in cmds:
            if (path, c.start_line) in own:
                continue
            by_name = c.name != "include"
            if any((by_name and word.search(a.value)) or variable_refs(a.value, derived)
                   for a in c.args):
                out.append((path, c))
    return out
