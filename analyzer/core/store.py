"""Query core: the one on-disk store every cached value of depgraph lives in.

``<cache>/store/<query>/<version>/<key[:2]>/<key[2:]>``: a query's name, its version (the
fingerprint rule of :mod:`analyzer.core.code_version`) and the digest of its explicit inputs.
Entries are in the checked format of :mod:`analyzer.util.cache_files` (a corrupted, truncated
or half-written entry reads as missing), written atomically; a read touches the entry (its
modification time is when it was last used). The one eviction policy
(:meth:`Store.evict`): when the store is larger than its cap, the entries of versions no
longer current go first, then the least recently used, until it is below nine tenths of the
cap, the folders it empties with them. A scan evicts at its end (and removes the folders of the
caches depgraph kept before the store); nothing else deletes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from analyzer.core.code_version import code_version
from analyzer.util.cache_files import (
    read_checked,
    read_keyed,
    read_pickled,
    write_checked,
    write_keyed,
    write_pickled,
)

_T = TypeVar("_T")
STORE_FOLDER = "store"
DEFAULT_CAP_MB = 2048
CAP_VARIABLE = "DEPGRAPH_CACHE_MB"
# the folders of the caches depgraph kept before the store (removed by the eviction)
LEGACY_FOLDERS = ("facts", "results", "edges", "check", "needles", "digests", "discovery",
                  "edits")
DECLARED: dict[str, Query] = {}  # name -> the query of that name (one per name)


@dataclass(frozen=True)
class Query:
    """A named pure query whose answers are stored: ``code`` the modules that compute them
    (a package stands for all its modules; what they import counts too), ``data`` the data
    folders they read, ``dists`` the distributions whose version changes them; ``shared``:
    its answers are immutable, one object for every asker of a command."""

    name: str
    code: tuple[str, ...]
    data: tuple[str, ...] = ()
    dists: tuple[str, ...] = ()
    # immutable answers, held for the whole command once asked (analyzer.core.session)
    shared: bool = False

    def __post_init__(self) -> None:
        if DECLARED.setdefault(self.name, self) != self:
            raise ValueError(f"two queries named {self.name!r}")

    @property
    def version(self) -> str:
        """The fingerprint of the code the query runs (computed once: ``code_version``)."""
        return code_version(self.code, self.data, self.dists)


def key_of(*parts: object) -> str:
    """The key of explicit inputs: the sha256 of their ``repr`` (strings, numbers, tuples)."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def tree_key(tree: Path | str) -> str:
    """The key of a query kept per scanned tree: one slot, replaced by each scan. ``tree``:
    the tree's root, or the name a scan keeps its slots under (``RunSettings.slot``)."""
    return key_of("tree", str(tree))


class Store:
    """The store under ``directory`` (the cache folder)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.root = directory / STORE_FOLDER

    def folder(self, query: Query) -> Path:
        """The folder of the current version of ``query``'s entries."""
        return self.root / query.name / query.version

    def path(self, query: Query, key: str) -> Path:
        return self.folder(query) / key[:2] / key[2:]

    def get(self, query: Query, key: str) -> object | None:
        """The stored answer, or ``None`` (missing, corrupted or not unpickling)."""
        return _used(self.path(query, key), read_pickled)

    def put(self, query: Query, key: str, value: object, *, shared: bool = False) -> None:
        write_pickled(self.path(query, key), value, shared=shared)

    def get_bytes(self, query: Query, key: str) -> bytes | None:
        return _used(self.path(query, key), read_checked)

    def put_bytes(self, query: Query, key: str, payload: bytes) -> None:
        write_checked(self.path(query, key), payload)

    def get_keyed(self, query: Query, key: str, wanted: Callable[[object], bool],
                  suffix: str = "") -> tuple[object, object] | None:
        """(head, value) of an entry written with :meth:`put_keyed`, when ``wanted(head)``;
        ``suffix`` names a companion entry of the same key (a store's changes since)."""
        return _used(self.path(query, key + suffix), lambda path: read_keyed(path, wanted))

    def put_keyed(self, query: Query, key: str, head: object, value: object, *,
                  shared: bool = False, suffix: str = "") -> None:
        write_keyed(self.path(query, key + suffix), head, value, shared=shared)

    def remove(self, query: Query, key: str, suffix: str = "") -> None:
        with contextlib.suppress(OSError):
            self.path(query, key + suffix).unlink(missing_ok=True)

    def evict(self, cap_bytes: int | None = None) -> int:
        """Apply the eviction policy; returns the number of entries removed. Stale: an
        entry of a query this process declared, under another version than its own."""
        current = {q.name: q.version for q in DECLARED.values()}
        for folder in LEGACY_FOLDERS:  # depgraph's caches before the store: never read again
            shutil.rmtree(self.directory / folder, ignore_errors=True)
        cap = cap_bytes if cap_bytes is not None else cap_from_environment()
        entries = list(_entries(self.root))
        total = sum(size for _, _, size, _ in entries)
        if total <= cap:
            return 0
        # stale versions first, then least recently used
        entries.sort(key=lambda e: (not _stale(e[3], current), e[1]))
        removed = 0
        goal = cap * 9 // 10
        for path, _, size, _ in entries:
            if total <= goal:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                total -= size
                removed += 1
            for emptied in (path.parent, path.parent.parent):  # (shard, version) when empty
                with contextlib.suppress(OSError):
                    emptied.rmdir()
        return removed


def _stale(slot: str, current: dict[str, str]) -> bool:
    name, _, version = slot.partition("/")
    return name in current and current[name] != version


def cap_from_environment() -> int:
    """The store's cap in bytes: ``DEPGRAPH_CACHE_MB`` (megabytes, 10^6 bytes), or 2,048 MB."""
    raw = os.environ.get(CAP_VARIABLE, "")
    try:
        mb = int(raw) if raw.strip() else DEFAULT_CAP_MB
    except ValueError:
        mb = DEFAULT_CAP_MB
    return max(mb, 0) * 1_000_000


def _used(path: Path, read: Callable[[Path], _T | None]) -> _T | None:
    """``read(path)``, the entry marked used when it is there."""
    value = read(path)
    if value is not None:
        touch(path)
    return value


def touch(path: Path) -> None:
    """Mark ``path`` as used now (the eviction policy's clock)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def _entries(root: Path) -> Iterator[tuple[Path, int, int, str]]:
    """(path, last use, size, ``query/version``) of every entry under ``root``."""
    try:
        queries = list(os.scandir(root))
    except OSError:
        return
    for query in queries:
        if not query.is_dir(follow_symlinks=False):
            continue
        for version in _dirs(query.path):
            slot = f"{query.name}/{version.name}"
            for shard in _dirs(version.path):
                for entry in _files(shard.path):
                    with contextlib.suppress(OSError):
                        st = entry.stat(follow_symlinks=False)
                        yield Path(entry.path), st.st_mtime_ns, st.st_size, slot


def _dirs(path: str) -> list[os.DirEntry[str]]:
    try:
        return [e for e in os.scandir(path) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _files(path: str) -> list[os.DirEntry[str]]:
    try:
        return [e for e in os.scandir(path) if e.is_file(follow_symlinks=False)]
    except OSError:
        return []
