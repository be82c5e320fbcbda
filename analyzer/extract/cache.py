"""Extract stage, cache: per-file facts on disk, keyed by path, content hash, language and
depgraph's version (extraction is a pure function of path and bytes; facts name their path).

A fact file is ``<sha256 of the payload>\\n<pickled facts>``; the digest is checked on every
read, so a corrupted or partial file is detected and rebuilt, never trusted. Keys include
depgraph's version and a hash of its code, queries and templates
(:func:`tool_fingerprint`), so an upgrade invalidates everything. Writes are
atomic (temp file + rename). Default location: ``$XDG_CACHE_HOME/depgraph`` or
``~/.cache/depgraph``.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

from analyzer.model import Language
from analyzer.util import pickling
from analyzer.util.cache_files import read_pickled, write_checked
from analyzer.util.fingerprint import tool_fingerprint


class FactsCache:
    """Facts under ``<directory>/facts/<tool fingerprint>/``; the folders of other
    fingerprints (an older depgraph) are removed by :meth:`sweep` before a run writes."""

    def __init__(self, directory: Path):
        self.base = directory
        self.root = directory / "facts"
        self.dir = self.root / tool_fingerprint()
        self.hits = 0
        self.misses = 0

    def _path(self, path: str, content_hash: str, kind: str) -> Path:
        key = hashlib.sha256(f"{kind}:{path}:{content_hash}".encode()).hexdigest()
        return self.dir / key[:2] / key[2:]

    def sweep(self) -> None:
        """Remove the facts of other depgraph versions (they can never be hit again)."""
        try:
            others = [p for p in self.root.iterdir() if p.is_dir() and p != self.dir]
        except OSError:
            return
        for other in others:
            shutil.rmtree(other, ignore_errors=True)

    def get(self, file: str, content_hash: str, kind: Language | str) -> Any | None:
        """Facts of ``file`` with that content, of one kind: a language's extraction, or
        another pure function of the bytes (``python-syntax``, ``verify-python``)."""
        facts = read_pickled(self._path(file, content_hash, kind))  # unreadable: a miss
        if facts is None:
            self.misses += 1  # missing, corrupted or partial: rebuilt by the caller
            return None
        self.hits += 1
        return facts

    def put(self, file: str, content_hash: str, kind: Language | str, facts: Any) -> None:
        self.put_payload(file, content_hash, kind, pickling.dumps(facts))

    def put_payload(self, file: str, content_hash: str, kind: Language | str,
                    payload: bytes) -> None:
        """Store already pickled facts (extraction workers pickle once, for this and for
        sending the facts back)."""
        write_checked(self._path(file, content_hash, kind), payload)
