"""Query core: one command's answers, shared by every asker in it (salsa's database lifetime).

Within a session (one ``depgraph`` command: :func:`session`), the answer of a query declared
``shared`` -- an immutable value, such as a file's facts -- is held once it has been loaded
or computed, and every later asker gets the same object: the gate's scan of the applied copy
and ``verify``'s scan of the pruned tree take the original's facts of every file they did not
change instead of unpickling a second copy of each (memory and time). Outside a session
nothing is held, so a process running many scans (the tests) keeps nothing between them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from analyzer.core.store import Query

MISSING = object()
_ACTIVE: list[dict[tuple[str, str], object]] = []


@contextmanager
def session() -> Iterator[None]:
    """Hold the shared answers of the queries asked inside, until it ends (inside another
    session: that one's, which goes on)."""
    if _ACTIVE:
        yield
        return
    held: dict[tuple[str, str], object] = {}
    _ACTIVE.append(held)
    try:
        yield
    finally:
        _ACTIVE.remove(held)
        held.clear()


def recall(query: Query, key: str) -> object:
    """The session's answer of ``query`` to ``key``, or :data:`MISSING`."""
    if not _ACTIVE or not query.shared:
        return MISSING
    return _ACTIVE[-1].get((query.name, key), MISSING)


def hold(query: Query, key: str, value: object) -> None:
    """Keep ``value`` as the session's answer of ``query`` to ``key`` (when shared)."""
    if _ACTIVE and query.shared:
        _ACTIVE[-1][(query.name, key)] = value
