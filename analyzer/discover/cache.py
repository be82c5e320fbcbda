"""Discover stage, cache: reuse the last walk of a tree while no folder in it changed.

Adding, removing or renaming an entry changes its folder's modification time, so a tree whose
listed folders all keep their stat signature (mtime, ctime, inode), and whose ignore files and
packaging metadata are unchanged, has the same source files, Python roots and problems as last
time (the idea of git's untracked cache). Then only the source files are stat'ed again, for
their sizes and the signatures the digest index (:mod:`analyzer.discover.digests`) needs.
Racy entries are not trusted: a folder or file modified less than ``RACY_NS`` before the walk
began could change again unseen, so such a walk is redone next time.

One entry per scanned root and exclude list, the query ``discovery`` of the store
(:mod:`analyzer.core`), in the checked format of :mod:`analyzer.util.cache_files`; any doubt means
a full walk.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, replace
from pathlib import Path

from analyzer.core.store import Query, Store, key_of
from analyzer.discover.digests import RACY_NS
from analyzer.discover.walk import Discovery, resolve_root, walk_tree

Signature = tuple[int, ...] | None  # None: the path did not exist
DISCOVERY = Query("discovery", code=("analyzer.discover",))


@dataclass
class _Entry:
    walked_at_ns: int
    checks: list[tuple[str, Signature]]  # folders listed and files read or looked for
    discovery: Discovery


def _signature(path: str) -> Signature:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_size, st.st_mode)


def discover_cached(root: Path, extra_excludes: tuple[str, ...],
                    cache_dir: Path) -> Discovery:
    resolved = resolve_root(root)
    store = Store(cache_dir)
    key = key_of(str(resolved), tuple(extra_excludes))
    reused = _reuse(store.get(DISCOVERY, key), resolved)
    if reused is not None:
        return reused
    started = time.time_ns()
    found, visited, deps = walk_tree(resolved, extra_excludes)
    checks = [(p, _signature(p)) for p in [*visited, *deps]]
    store.put(DISCOVERY, key, _Entry(started, checks, found))
    return found


def _reuse(entry: object, root: Path) -> Discovery | None:
    if not isinstance(entry, _Entry) or entry.discovery.root != root:
        return None
    limit = entry.walked_at_ns - RACY_NS
    for checked, sig in entry.checks:
        now = _signature(checked)
        if now != sig or (sig is not None and sig[0] >= limit):
            return None
    files = []
    for source in entry.discovery.files:
        try:
            st = os.stat(root / source.path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        files.append(replace(source, size=st.st_size,
                             stat_key=(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)))
    return replace(entry.discovery, files=tuple(files))
