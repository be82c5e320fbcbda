"""Pipeline, between commands: where a pruned tree's rounds settled, kept for its next scan.

The gate verifies the plan on an applied copy of the tree; ``depgraph verify --before`` then
scans the user's pruned tree: the same files, profile and options in another folder, so the
same rounds (seven of them on SGLang). Their fixpoint is a function of those inputs: the state
their settling round started from is stored under the hash of the inputs
(:func:`~analyzer.pipeline.inputs.content_key`, which leaves out only where the tree lies),
and a scan that asks with the same hash starts there. Each rule only keeps more and a round
computes from its state alone (the memos only save work), so the one round it runs is the
settling round again: the same plan, the same log, the same liveness.
"""

from __future__ import annotations

from analyzer.core.session import current_store
from analyzer.core.store import Query
from analyzer.pipeline.rounds_state import Retained

SETTLING = Query("settling", code=("analyzer",))  # the rounds' last start: all of depgraph


def stored_start(key: str) -> Retained | None:
    """The state the rounds of inputs hashing to ``key`` settled from (None: not stored, no
    session)."""
    store = current_store()
    got = store.get(SETTLING, key) if store is not None else None
    return got if isinstance(got, Retained) else None


def keep_start(key: str, state: Retained | None) -> None:
    """Store ``state`` (the rounds' :attr:`~analyzer.pipeline.rounds.Rounds.settling`) for
    the next scan of the same inputs; nothing when the rounds ran out."""
    store = current_store()
    if store is not None and state is not None:
        store.put(SETTLING, key, state)
