"""Extract stage, cache: per-file facts on disk, keyed by path, content hash, language and
depgraph's version (extraction is a pure function of path and bytes; facts name their path).

A fact file is ``<sha256 of the payload>\\n<pickled facts>``; the digest is checked on every
read, so a corrupted or partial file is detected and rebuilt, never trusted. Keys include
depgraph's version and the query files' hash, so an upgrade invalidates everything. Writes are
atomic (temp file + rename). Default location: ``$XDG_CACHE_HOME/depgraph`` or
``~/.cache/depgraph``.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from analyzer import __version__
from analyzer.extract.treesitter import data_dir


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "depgraph"


@cache
def _salt() -> str:
    h = hashlib.sha256(__version__.encode())
    for q in sorted(data_dir("queries").glob("*.scm")):
        h.update(q.read_bytes())
    return h.hexdigest()[:16]


class FactsCache:
    def __init__(self, directory: Path):
        self.dir = directory
        self.hits = 0
        self.misses = 0

    def _path(self, path: str, content_hash: str, language: str) -> Path:
        key = hashlib.sha256(f"{_salt()}:{language}:{path}:{content_hash}".encode()).hexdigest()
        return self.dir / key[:2] / key[2:]

    def get(self, file: str, content_hash: str, language: str) -> Any | None:
        path = self._path(file, content_hash, language)
        try:
            raw = path.read_bytes()
        except OSError:
            self.misses += 1
            return None
        digest, _, payload = raw.partition(b"\n")
        if hashlib.sha256(payload).hexdigest().encode() != digest:
            self.misses += 1  # corrupted or partial: rebuilt by the caller
            return None
        try:
            facts = pickle.loads(payload)
        except Exception:  # an unreadable pickle is a miss, never an error
            self.misses += 1
            return None
        self.hits += 1
        return facts

    def put(self, file: str, content_hash: str, language: str, facts: Any) -> None:
        path = self._path(file, content_hash, language)
        payload = pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
            os.replace(tmp, path)
        except OSError:
            pass  # a cache that cannot be written only costs time
