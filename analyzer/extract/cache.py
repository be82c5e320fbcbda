"""Extract stage, cache: per-file facts in the query core's store (:mod:`analyzer.core`),
keyed by path, content hash and kind (extraction is a pure function of path and bytes; facts
name their path).

The query ``facts`` is the extraction (its version: the code of ``analyzer.extract`` and what
it imports, the queries, the grammar wheels); other pure functions of one file's bytes that
later stages keep here name their own query (``python-syntax``, ``verify-python``), so each is
invalidated by its own code only. Entries are checked on every read (a corrupted or partial
one is recomputed, never trusted) and written atomically. Default location:
``$XDG_CACHE_HOME/depgraph`` or ``~/.cache/depgraph``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analyzer.core.session import MISSING, current, hold, recall
from analyzer.core.store import Query, Store, key_of
from analyzer.model import Language
from analyzer.util import pickling

PARSERS = ("tree-sitter", "tree-sitter-python", "tree-sitter-cuda", "tree-sitter-cmake")
FACTS = Query("facts", code=("analyzer.extract",), data=("queries",), dists=PARSERS,
              shared=True)


class FactsCache:
    """Per-file values in the store under ``directory``: the extraction's facts, or another
    query's (``query``) answer for one file's bytes."""

    def __init__(self, directory: Path):
        self.base = directory
        self.store = Store(directory)
        self.hits = 0
        self.misses = 0

    def get(self, file: str, content_hash: str, kind: Language | str,
            query: Query = FACTS) -> Any | None:
        """Facts of ``file`` with that content, of one kind: a language's extraction, or
        another pure function of the bytes (``query``)."""
        key = key_of(str(kind), file, content_hash)
        facts = recall(query, key)
        if facts is not MISSING:
            self.hits += 1
            return facts
        facts = self.store.get(query, key)
        if facts is None:
            self.misses += 1  # missing, corrupted or partial: rebuilt by the caller
            return None
        self.hits += 1
        hold(query, key, facts)
        return facts

    def held(self, file: str, content_hash: str, kind: Language | str, facts: Any,
             query: Query = FACTS) -> None:
        """Facts just computed (by a worker, stored by it): the command's answer from now."""
        hold(query, key_of(str(kind), file, content_hash), facts)

    def put(self, file: str, content_hash: str, kind: Language | str, facts: Any,
            query: Query = FACTS) -> None:
        self.held(file, content_hash, kind, facts, query)
        self.put_payload(file, content_hash, kind, pickling.dumps(facts), query)

    def put_payload(self, file: str, content_hash: str, kind: Language | str,
                    payload: bytes, query: Query = FACTS) -> None:
        """Store already pickled facts (extraction workers pickle once, for this and for
        sending the facts back)."""
        self.store.put_bytes(query, key_of(str(kind), file, content_hash), payload)


def stored_facts() -> FactsCache | None:
    """The open session's facts cache (:mod:`analyzer.core.session`); None when nothing is
    stored (no session, or ``--no-cache``)."""
    opened = current()
    return opened.view("facts", lambda store: FactsCache(store.directory)) \
        if opened is not None else None
