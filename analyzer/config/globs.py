"""Config stage: matching the profile's patterns -- gitignore-like path globs over repo-relative
POSIX paths and fnmatch identifier patterns -- memoized, one regex per pattern tuple."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from functools import cache, lru_cache


@cache
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """gitignore-like glob over repo-relative POSIX paths; no slash = match any basename."""
    pat = pattern.strip("/")
    out = []
    i = 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif pat[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pat[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pat[i]))
            i += 1
    body = "".join(out)
    prefix = "" if "/" in pat else "(?:.*/)?"
    return re.compile(f"^{prefix}{body}(?:/.*)?$")


@cache
def _any_glob(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex for a tuple of globs (a feature's paths): one call per path, not one each."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{_glob_regex(p).pattern})" for p in patterns))


@cache
def identifier_regex(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex matching what any of the fnmatch ``patterns`` matches (None: no pattern)."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))


def paths_regex(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """The one regex of a tuple of path globs (None: no pattern): :func:`path_matches` is
    ``paths_regex(patterns).match(path)``."""
    return _any_glob(tuple(patterns))


def any_regex(regexes: Iterable[re.Pattern[str] | None]) -> re.Pattern[str] | None:
    """One regex matching what any of ``regexes`` matches (each self-contained: the
    patterns above carry their flags inline), None when there is none. Where they cannot be
    joined (a group name two of them use), one matching everything: a caller's filter then
    lets all through."""
    found = [rx.pattern for rx in regexes if rx is not None]
    if not found:
        return None
    try:
        return re.compile("|".join(f"(?:{p})" for p in found))
    except re.error:
        return re.compile("")


@lru_cache(maxsize=4096)  # every symbol of a file asks about the same path, in a row
def path_matches(path: str, patterns: tuple[str, ...]) -> bool:
    rx = _any_glob(tuple(patterns))
    return rx is not None and rx.match(path) is not None


@lru_cache(maxsize=65536)
def identifier_matches(name: str, patterns: tuple[str, ...]) -> bool:
    rx = identifier_regex(tuple(patterns))
    return rx is not None and rx.match(name) is not None


def any_path_matches(paths: Iterable[str], patterns: tuple[str, ...]) -> bool:
    """``any(path_matches(p, patterns) for p in paths)``, with one regex call per path (a
    feature's path globs against every file of the tree)."""
    rx = paths_regex(tuple(patterns))
    return rx is not None and any(map(rx.match, paths))


def any_identifier_matches(names: Iterable[str], patterns: tuple[str, ...]) -> bool:
    """``any(fnmatchcase(n, p) for p in patterns for n in names)``, with one regex call per
    name (the profile's identifier patterns against every name of the tree)."""
    rx = identifier_regex(tuple(patterns))
    return rx is not None and any(map(rx.match, names))


# the characters that make a name an fnmatch pattern
WILDCARDS = frozenset("*?[")


class DottedPrefixes:
    """What :func:`dotted_prefixes` answers: a name that is one of the prefixes, lies
    under one (``p.rest``), or matches one as an fnmatch pattern. Thousands of prefixes (the
    modules a context declares gone) in a set: a name's own dotted prefixes are looked up,
    and only the patterns with wildcards go to a regex."""

    def __init__(self, prefixes: frozenset[str]) -> None:
        self._names = prefixes
        globs = sorted(p for p in prefixes if not WILDCARDS.isdisjoint(p))
        self._globs = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in globs)) \
            if globs else None

    def match(self, name: str) -> bool:
        names = self._names
        if name in names:
            return True
        dot = name.find(".")
        while dot >= 0:
            if name[:dot] in names:
                return True
            dot = name.find(".", dot + 1)
        return self._globs is not None and self._globs.match(name) is not None


@cache
def dotted_prefixes(prefixes: frozenset[str]) -> DottedPrefixes | None:
    """What matches a dotted name that is one of ``prefixes``, lies under one (``p.rest``),
    or matches one as an fnmatch pattern: ``name == p or name.startswith(p + ".") or
    fnmatchcase(name, p)`` for some ``p`` (its ``match(name)``; None: no prefix)."""
    if not prefixes:
        return None
    return DottedPrefixes(prefixes)
