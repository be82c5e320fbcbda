"""Plan stage, cache: the soundness check's per-file work (``analyzer.plan.check``), kept for
the rounds of one scan and persisted between scans.

Linting a file as it is (:class:`FileLint`) depends on its bytes alone; simulating the
plan's edits of it (:class:`FileSim`) on its bytes and those edits. Both are keyed by the
file's path and sha256 (and the edits, as written in the manifest), by the query's version
(its code, the pyflakes version and the Python version that parses), so a changed file, a changed
plan for it or an upgrade is never answered from the cache. A scan that plans what the last one
planned re-lints nothing; a scan after one file changed lints that file only.

On disk: the query ``check`` of the store (:mod:`analyzer.core`), one entry per scanned tree,
in the checked format of every depgraph cache (corrupted -> rebuilt), holding the entries the last
scan used (so it does not grow with every edit).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from analyzer.core.store import Query, Store, tree_key
from analyzer.extract.source_bytes import SourceBytes
from analyzer.model import Deletion
from analyzer.plan.check.lint import FileLint
from analyzer.plan.check.simulate import FileSim, lint_and_simulate, lint_original, simulate
from analyzer.util.parallel import parallel_map

Entry = FileSim | FileLint | None  # None: the file does not parse
CHECKS = Query("check", code=("analyzer.plan.check_cache",), dists=("pyflakes",))


class CheckCache:
    """File lints and simulations by content; ``directory`` None keeps them in memory only."""

    def __init__(self, directory: Path | None = None, tree_root: Path | str | None = None,
                 jobs: int = 1, origin: Path | str | None = None):
        self.jobs = jobs  # worker processes for :meth:`prefetch`
        self._store = Store(directory) if directory is not None else None
        self._slot = tree_key(tree_root or Path())
        # the slot of the tree this one was pruned from (the gate's copy: the scanned
        # tree's), read when this tree's holds nothing (entries are keyed by content)
        self._origin = tree_key(origin) if origin is not None else None
        self._saved: tuple[int, int] = (0, 0)  # (misses, entries used) when last saved
        self._stored: dict[str, Entry] | None = None  # loaded on first use
        self._used: dict[str, Entry] = {}
        self._digests: dict[str, str] = {}  # path -> sha256 of the bytes it was given
        self._originals: dict[str, FileLint | None] = {}  # path -> lint, this scan
        self.hits = 0
        self.misses = 0
        self._marked: tuple[frozenset[str], int] = (frozenset(), 0)  # (:meth:`mark`)

    def original(self, path: str, sources: Mapping[str, bytes]) -> FileLint | None:
        """The file's lint as it is (None when it does not parse); ``sources``: path -> bytes,
        read only when the lint is not known (a scan's :class:`SourceBytes` reads the file
        again)."""
        if path in self._originals:
            return self._originals[path]
        key = self._key("original", path, sources)
        found = self._lookup(key)
        if found is _MISSING:
            found = lint_original(sources[path], path)
            self._used[key] = found
        assert found is None or isinstance(found, FileLint)
        self._originals[path] = found
        return found

    def simulation(self, path: str, sources: Mapping[str, bytes], edits: tuple[Deletion, ...]
                   ) -> FileSim:
        """The file with ``edits`` simulated (see :func:`analyzer.plan.check.simulate`); its
        bytes are read from ``sources`` only when the simulation is not known."""
        key = self._key("sim", path, sources, repr(edits))
        original = self.original(path, sources)  # also what `originals` reports
        found = self._lookup(key)
        if isinstance(found, FileSim):
            return found
        sim = simulate(sources[path], list(edits), path, original)
        self._used[key] = sim
        return sim

    def prefetch(self, edits: dict[str, tuple[Deletion, ...]], sources: Mapping[str, bytes]
                 ) -> None:
        """Compute the simulations of ``edits`` (file -> its edits) not known yet, and the
        lints of their originals, in ``jobs`` worker processes: :meth:`simulation` then
        answers them (a cold scan's check is pyflakes on a few hundred files)."""
        self.prefetch_all([edits], sources)

    def prefetch_all(self, plans: Sequence[dict[str, tuple[Deletion, ...]]],
                     sources: Mapping[str, bytes]) -> None:
        """:meth:`prefetch` of several plans' edits at once (the shares of a plan that the
        feature sets check): one pool, or two when a file whose original is not linted yet
        has several edits -- the first pool lints it once, with one of them."""
        pending: list[tuple[str, tuple[Deletion, ...], str]] = []
        asked: set[str] = set()
        for edits in plans:
            for path, file_edits in sorted(edits.items()):
                if path not in sources:
                    continue
                key = self._key("sim", path, sources, repr(file_edits))
                if key not in asked and self._lookup(key) is _MISSING:
                    asked.add(key)
                    pending.append((path, file_edits, key))
        while pending:
            todo: list[tuple[str, bytes, tuple[Deletion, ...], bool, FileLint | None]] = []
            keys: list[str] = []
            later: list[tuple[str, tuple[Deletion, ...], str]] = []
            linting: set[str] = set()  # files whose original a job of this pool lints
            for path, file_edits, key in pending:
                known: object = self._originals.get(path, _MISSING)
                if known is _MISSING:
                    known = self._lookup(self._key("original", path, sources))
                if known is _MISSING:
                    if path in linting:
                        later.append((path, file_edits, key))
                        continue
                    linting.add(path)
                todo.append((path, sources[path], file_edits, known is not _MISSING,
                             known if isinstance(known, FileLint) else None))
                keys.append(key)
            done = parallel_map(_lint_and_simulate, todo, self.jobs, size=lambda t: len(t[1]))
            for (path, *_), key, (original, sim) in zip(todo, keys, done, strict=True):
                self._originals.setdefault(path, original)
                self._used.setdefault(self._key("original", path, sources), original)
                self._used[key] = sim
            pending = later

    def originals(self) -> dict[str, FileLint | None]:
        """Path -> lint of every file this scan linted or found linted."""
        return dict(self._originals)

    def mark(self) -> None:
        """Begin what :meth:`taken` hands over."""
        self._marked = (frozenset(self._used), self.misses)

    def taken(self) -> tuple[dict[str, Entry], int]:
        """What this cache answered since :meth:`mark` (entries by key) and how many of them
        it computed: what a worker forked from it hands back (:meth:`absorb`)."""
        known, misses = self._marked
        return {k: v for k, v in self._used.items() if k not in known}, self.misses - misses

    def absorb(self, taken: tuple[dict[str, Entry], int]) -> None:
        """Add what a copy of this cache answered in another process (:meth:`taken`), so
        that :meth:`save` keeps it too."""
        used, misses = taken
        for key, entry in used.items():
            self._used.setdefault(key, entry)
        self.misses += misses

    def save(self) -> None:
        """Persist what this scan used (nothing without a cache folder)."""
        now = (self.misses, len(self._used))
        if self._store is not None and self.misses and now != self._saved:
            self._store.put_keyed(CHECKS, self._slot, CHECKS.version, self._used)
            self._saved = now

    # -- inside ------------------------------------------------------------------------------
    def _lookup(self, key: str) -> object:
        if key in self._used:
            return self._used[key]
        stored = self._load()
        if key in stored:
            self.hits += 1
            self._used[key] = stored[key]
            return stored[key]
        self.misses += 1
        return _MISSING

    def _load(self) -> dict[str, Entry]:
        if self._stored is None:
            self._stored = {}
            # (another depgraph's, pyflakes' or Python's entries are not even unpickled)
            for slot in (self._slot, self._origin):
                loaded = self._store.get_keyed(CHECKS, slot,
                                               lambda head: head == CHECKS.version) \
                    if self._store is not None and slot is not None else None
                if loaded is not None and isinstance(loaded[1], dict):
                    self._stored = loaded[1]
                    break
        return self._stored

    def _key(self, kind: str, path: str, sources: Mapping[str, bytes], extra: str = "") -> str:
        digest = self._digests.get(path)
        if digest is None:  # (a scan's SourceBytes knows it without reading the file)
            digest = self._digests[path] = sources.digest(path) \
                if isinstance(sources, SourceBytes) else hashlib.sha256(sources[path]).hexdigest()
        return hashlib.sha256("\0".join(
            (kind, CHECKS.version, path, digest, extra)).encode()).hexdigest()


def _lint_and_simulate(job: tuple[str, bytes, tuple[Deletion, ...], bool, FileLint | None]
                       ) -> tuple[FileLint | None, FileSim]:
    """(the original's lint, the simulation) of one file: the work :meth:`CheckCache.prefetch`
    hands a worker (``known``: the lint is given, None meaning the file does not parse)."""
    path, source, edits, known, original = job
    if not known:
        return lint_and_simulate(source, list(edits), path)
    return original, simulate(source, list(edits), path, original)


_MISSING = object()
