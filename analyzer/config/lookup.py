"""Config stage, before discovery: where a scan's config is, and its paths seen from the
scanned folder.

A config (``depgraph.toml``, or ``[tool.depgraph]`` in a ``pyproject.toml``) is looked for in
the scanned folder, then in each folder above it up to the repository's top (the folder
holding ``.git``) -- the nearest wins, as ruff and knip find theirs. A config above the
scanned folder wrote its path globs (features' ``paths``, ``never_delete`` paths,
``test_paths``, ``exclude``) from its own folder; :func:`rebased` rewrites them for the
scanned folder (``python/sglang/**`` seen from ``python/`` is ``sglang/**``).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import tomllib
from pathlib import Path, PurePosixPath

from analyzer.config.types import Profile


def find_config(scan_root: Path) -> Path | None:
    """The nearest config file from ``scan_root`` up to the repository's top (or the
    filesystem's root when no folder above holds ``.git``)."""
    folder = scan_root.resolve()
    while True:
        own = folder / "depgraph.toml"
        if own.is_file():
            return own
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and _has_depgraph_table(pyproject):
            return pyproject
        if (folder / ".git").exists() or folder.parent == folder:
            return None
        folder = folder.parent


def _has_depgraph_table(pyproject: Path) -> bool:
    try:
        doc = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    tool = doc.get("tool")
    return isinstance(tool, dict) and "depgraph" in tool


def rebased(profile: Profile, prefix: str) -> Profile:
    """``profile``'s path globs as seen from its folder's subfolder ``prefix`` (a relative
    POSIX path; "" leaves the profile as it is). A glob that can match nothing under the
    subfolder stays as written: it matches nothing there either (its anchor is stale)."""
    if not prefix:
        return profile

    def one(pattern: str) -> str:
        return rebase_glob(pattern, prefix)

    def many(patterns: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(one(p) for p in patterns)

    features = {name: dataclasses.replace(
        f, paths=many(f.paths), anchor_groups={
            kind: (tuple(many(g) for g in groups) if kind == "paths" else groups)
            for kind, groups in f.anchor_groups.items()})
        for name, f in profile.features.items()}
    never = tuple(dataclasses.replace(e, path=one(e.path)) if e.path else e
                  for e in profile.never_delete)
    options = dataclasses.replace(profile.options, excludes=many(profile.options.excludes))
    return dataclasses.replace(profile, features=features, never_delete=never,
                               test_paths=many(profile.test_paths), options=options)


def rebase_glob(pattern: str, prefix: str) -> str:
    """A gitignore-like glob written from a folder, as seen from its subfolder ``prefix``:
    a glob without a slash matches a name anywhere (unchanged), a leading ``**/`` matches at
    any depth (unchanged); otherwise the segments the prefix's folders match are dropped."""
    body = pattern.strip("/")
    if "/" not in body or body.startswith("**"):
        return pattern
    segments = body.split("/")
    for folder in PurePosixPath(prefix).parts:
        if not segments or segments[0] == "**":
            break
        if not fnmatch.fnmatchcase(folder, segments[0]) or len(segments) == 1:
            return pattern  # names nothing under the subfolder
        segments = segments[1:]
    return "/".join(segments) + ("/" if pattern.endswith("/") else "")

