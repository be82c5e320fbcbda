"""Shared: the cache folder and the fingerprint of depgraph itself (version, grammar versions,
its own code and data) that keys every cache, so an upgrade invalidates them."""

from __future__ import annotations

import hashlib
import os
from functools import cache
from importlib import metadata
from pathlib import Path

from analyzer import __version__
from analyzer.util.data import data_dir


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "depgraph"


@cache
def tool_fingerprint() -> str:
    """depgraph's version, the tree-sitter and grammar versions, and a hash of its own code
    and data (queries, templates, built-in profiles): an upgrade of any of them, or an edit of
    an editable install, invalidates every cache."""
    h = hashlib.sha256(__version__.encode())
    for dist in _PARSERS:  # a new grammar parses differently
        try:
            h.update(f"{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{dist}=?".encode())
    package = Path(__file__).resolve().parent.parent  # analyzer/
    files = [p for p in package.rglob("*") if p.suffix in _OWN_SUFFIXES and p.is_file()]
    for folder in ("queries", "templates"):
        files.extend(p for p in data_dir(folder).glob("*") if p.is_file())
    for p in sorted(set(files)):
        h.update(str(p.name).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


_OWN_SUFFIXES = {".py", ".scm", ".toml", ".j2", ".json"}
_PARSERS = ("tree-sitter", "tree-sitter-python", "tree-sitter-cuda", "tree-sitter-cmake")
