"""Extract stage, cache: the byte searches the seeds make (``analyzer.extract.seeds``) kept per
scanned tree by each file's digest.

Which files are parsed whatever the imports say depends on two searches of every file's bytes:
does it hold ``__main__`` (a script), and does it hold the literal part of one of the
profile's feature identifiers or platform methods (a feature claims symbols by name). Both are
pure functions of the bytes and of the needles searched for: ~0.4 s over the largest trees,
the same answers every scan. So each file's answers are kept under its sha256, and a scan
searches only the files whose bytes it has not seen; another set of needles searches all again.

On disk: the query ``needles`` of the store (:mod:`analyzer.core`), one entry per scanned tree, in
the checked format of every depgraph cache (corrupted -> searched again), headed by the needles:
the answers of another set are never unpickled. Only the digests of the last scan are kept.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from analyzer.core.session import current_store
from analyzer.core.store import Query, tree_key

SCRIPT = 1  # the bytes hold ``__main__``
NEEDLE = 2  # the bytes hold one of the needles
_FORMAT = 1
_MAIN = b"__main__"
NEEDLES = Query("needles", code=("analyzer.extract.needle_cache",))


class NeedleSearch:
    """The answers for one set of needles: stored ones reused by digest, new ones searched."""

    def __init__(self, needles: tuple[bytes, ...], stored: dict[str, int]) -> None:
        self.needles = needles
        self.stored = stored
        self.answers: dict[str, int] = {}  # every digest asked about by this scan

    def flags(self, data: bytes | None, digest: str) -> int:
        """``SCRIPT | NEEDLE`` bits of one file's bytes (unreadable files: none)."""
        if data is None:
            return 0
        got = self.answers.get(digest, self.stored.get(digest)) if digest else None
        if got is None:
            got = (SCRIPT if _MAIN in data else 0) \
                | (NEEDLE if any(n in data for n in self.needles) else 0)
        if digest:
            self.answers[digest] = got
        return got


class NeedleCache:
    """The stored searches of one tree, in the open session's store (none: nothing kept)."""

    def __init__(self, tree_root: Path) -> None:
        self._store = current_store()
        self._key = tree_key(tree_root)

    def search(self, needles: Collection[bytes]) -> NeedleSearch:
        """A search for ``needles``, with the answers the last scan for the same kept."""
        head = (_FORMAT, tuple(sorted(set(needles))))
        loaded = self._store.get_keyed(NEEDLES, self._key, lambda got: got == head) \
            if self._store is not None else None
        stored = loaded[1] if loaded is not None and isinstance(loaded[1], dict) else {}
        return NeedleSearch(head[1], stored)

    def save(self, search: NeedleSearch) -> None:
        """Keep what ``search`` answered, unless it is what was stored."""
        if self._store is not None and search.answers != search.stored:
            self._store.put_keyed(NEEDLES, self._key, (_FORMAT, search.needles),
                                  search.answers)
