"""Query core: one command's database -- its store, and the answers it has already loaded.

A session (:func:`session`) is one ``depgraph`` command's view of the query core: the store
its queries read and write (none with ``--no-cache``), and, for a query declared ``shared``
(an immutable value, such as a file's facts), the answer once loaded or computed, so every
later asker gets the same object: the gate's scan of the applied copy and ``verify``'s scan
of the pruned tree take the original's facts of every file they did not change instead of
unpickling a second copy of each (memory and time). Stage code asks the session for what it
stores (:func:`current_store`, ``analyzer.extract.cache.stored_facts``) instead of taking a
cache as a parameter: it reads as if nothing were cached. A session opened inside another is
that one (the gate's scan is its scan's). Outside a session nothing is stored or held, so a
process running many scans (the tests) keeps nothing between them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from analyzer.core.store import Query, Store

MISSING = object()
_T = TypeVar("_T")


@dataclass
class Session:
    """One command's store (None: nothing persisted) and held answers."""

    store: Store | None
    held: dict[tuple[str, str], object] = field(default_factory=dict)
    # objects made once per session over its store (a stage's view of it: the facts cache)
    views: dict[str, object] = field(default_factory=dict)

    def view(self, name: str, make: Callable[[Store], _T]) -> _T | None:
        """The session's ``name`` view of its store, made on first use (None: no store)."""
        if self.store is None:
            return None
        if name not in self.views:
            self.views[name] = make(self.store)
        return self.views[name]  # type: ignore[return-value]


_ACTIVE: list[Session] = []


@contextmanager
def session(directory: Path | None = None) -> Iterator[Session]:
    """A session storing under the cache folder ``directory`` (None: nothing stored); inside
    another session, that one."""
    if _ACTIVE:
        yield _ACTIVE[-1]
        return
    opened = Session(Store(directory) if directory is not None else None)
    _ACTIVE.append(opened)
    try:
        yield opened
    finally:
        _ACTIVE.remove(opened)
        opened.held.clear()
        opened.views.clear()


def current() -> Session | None:
    return _ACTIVE[-1] if _ACTIVE else None


def current_store() -> Store | None:
    """The store of the open session (None: no session, or one that stores nothing)."""
    return _ACTIVE[-1].store if _ACTIVE else None


def recall(query: Query, key: str) -> object:
    """The session's answer of ``query`` to ``key``, or :data:`MISSING`."""
    if not _ACTIVE or not query.shared:
        return MISSING
    return _ACTIVE[-1].held.get((query.name, key), MISSING)


def hold(query: Query, key: str, value: object) -> None:
    """Keep ``value`` as the session's answer of ``query`` to ``key`` (when shared)."""
    if _ACTIVE and query.shared:
        _ACTIVE[-1].held[(query.name, key)] = value
