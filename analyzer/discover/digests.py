"""Extract stage input: the sha256 of every discovered file, without re-reading unchanged ones.

The trick of git's index: a file whose stat signature (size, mtime, ctime, inode) equals the
one recorded when it was last hashed has the recorded content hash, so an unchanged tree is
fingerprinted from ``stat`` alone (discovery already stats every file). Racy entries are never
trusted: a file modified less than ``RACY_NS`` before it was hashed could change again within
the clock's granularity without changing its signature, so it is read and hashed again.

The index is one pickle per scanned root under ``<cache>/digests/``, written atomically and
checked like the other caches (a bad file is ignored and rebuilt).
"""

from __future__ import annotations

import time
from pathlib import Path

from analyzer.model import SourceFile
from analyzer.util.cache_files import read_pickled, tree_cache_path, write_pickled

RACY_NS = 2_000_000_000  # FAT's 2 s granularity is the coarsest in use

# path -> (stat signature, sha256, when it was hashed in ns)
Entry = tuple[tuple[int, ...], str, int]


class DigestIndex:
    def __init__(self, directory: Path, root: Path):
        self.path = tree_cache_path(directory, "digests", root)
        self.entries: dict[str, Entry] = self._load()
        self.changed = False

    def _load(self) -> dict[str, Entry]:
        data = read_pickled(self.path)  # an unreadable index is an empty one
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
        write_pickled(self.path, self.entries)
        self.changed = False


def now_ns() -> int:
    return time.time_ns()
