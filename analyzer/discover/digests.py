"""Extract stage input: the sha256 of every discovered file, without re-reading unchanged ones.

The trick of git's index: a file whose stat signature (size, mtime, ctime, inode) equals the
one recorded when it was last hashed has the recorded content hash, so an unchanged tree is
fingerprinted from ``stat`` alone (discovery already stats every file). Racy entries are never
trusted: a file modified less than ``RACY_NS`` before it was hashed could change again within
the clock's granularity without changing its signature, so it is read and hashed again.

The index is the query ``digests`` of the store (:mod:`analyzer.core`), one entry per scanned root,
written atomically and checked like the other caches (a bad file is ignored and rebuilt).
"""

from __future__ import annotations

import time
from pathlib import Path

from analyzer.core.store import Query, Store, tree_key
from analyzer.model import SourceFile

DIGESTS = Query("digests", code=("analyzer.discover.digests",))
RACY_NS = 2_000_000_000  # FAT's 2 s granularity is the coarsest in use

# path -> (stat signature, sha256, when it was hashed in ns)
Entry = tuple[tuple[int, ...], str, int]


class DigestIndex:
    def __init__(self, directory: Path, root: Path | str):
        self.store = Store(directory)
        self.key = tree_key(root)
        self.entries: dict[str, Entry] = self._load()
        self.changed = False

    def _load(self) -> dict[str, Entry]:
        data = self.store.get(DIGESTS, self.key)  # an unreadable index is an empty one
        return data if isinstance(data, dict) else {}

    def known(self, source: SourceFile) -> str | None:
        """The recorded sha256 if ``source`` is unchanged and was hashed well after its
        last modification, else ``None`` (read it)."""
        entry = self.entries.get(source.path)
        if entry is None or not source.stat_key or entry[0] != source.stat_key:
            return None
        mtime_ns = source.stat_key[1]
        if mtime_ns >= entry[2] - RACY_NS:
            return None
        return entry[1]

    def record(self, source: SourceFile, digest: str, hashed_at_ns: int) -> None:
        if not source.stat_key:
            return
        entry = (source.stat_key, digest, hashed_at_ns)
        if self.entries.get(source.path) != entry:
            self.entries[source.path] = entry
            self.changed = True

    def save(self, paths: set[str]) -> None:
        """Write the index (only entries of ``paths``, the files discovered this time)."""
        stale = set(self.entries) - paths
        if not self.changed and not stale:
            return
        for p in stale:
            del self.entries[p]
        self.store.put(DIGESTS, self.key, self.entries)
        self.changed = False


def now_ns() -> int:
    return time.time_ns()
