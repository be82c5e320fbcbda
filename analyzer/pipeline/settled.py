"""Pipeline, between commands: where the rounds of the same inputs settled, kept for the next
run of them.

The rounds' fixpoint (:meth:`~analyzer.pipeline.rounds.Rounds.run` from nothing kept) is a
function of what they read: every file of the tree, the profile and the options
(:func:`~analyzer.pipeline.inputs.content_key`, which leaves out only where the tree lies)
and which files the scan parsed (the demand-driven extraction counts the others). The state
their settling round started from is stored under a hash of those, with the names their
decisions sought tree-wide; rounds that ask with the same hash start there -- the scan's own
plan, each plan under other drops that the shares and what-frees make, the gate's copy and
``depgraph verify`` of the pruned tree elsewhere. Each rule only keeps more and a round
computes from its state alone (the memos only save work), so the one round they run is the
settling round again: the same plan, the same log, the same liveness. The sought names are
noted again, the earlier rounds' among them: a counted file that may define one is parsed,
as after rounds run from nothing (``analyzer.pipeline.analyze``). They are every name the
index had been asked for when the rounds settled -- a superset of the rounds' own when other
plans of the scan asked first -- which at worst parses a file more (the same answer: the
full parse's, ``--parse-all``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from analyzer.config.profile import effective_constants
from analyzer.core.session import current_store
from analyzer.core.store import Query, key_of
from analyzer.extract.cache import PARSERS
from analyzer.pipeline.inputs import ScanInputs, content_key
from analyzer.pipeline.rounds_state import Retained

if TYPE_CHECKING:
    from analyzer.config.options import ScanOptions
    from analyzer.decide.profile_facts import ProfileUse
    from analyzer.resolve.python import ModuleIndex

# the rounds' last start: all of depgraph, its patterns and what parses and lints for it
SETTLING = Query("settling", code=("analyzer",), data=("queries",), dists=(*PARSERS, "pyflakes"))


@dataclass(frozen=True)
class Settling:
    """Where rounds settled: the state their settling round started from, and every name the
    module index had been asked for tree-wide when they had."""

    start: Retained
    sought: frozenset[str]


def settling_key(inputs: ScanInputs, options: ScanOptions, counted: frozenset[str] | None,
                 use: ProfileUse, index: ModuleIndex) -> str | None:
    """The key of the rounds over ``inputs`` with ``options`` and the files ``counted`` (not
    parsed), under ``use`` (the profile's use of those options); None when they are not to be
    kept: ``counted`` None (the caller keeps nothing), or a file changed between its hashing
    and its reading. Each module of ``index`` parsed without errors counts by what the
    analysis reads of it (``PythonFacts.analysis_digest``), not by its bytes: the early
    cut-off -- an edit no fact and no line of code sees keeps the key.

    The rounds read ``--drop`` and ``--keep`` only through what they make of them: the
    features dropped (in their order) and the constants folded with (a kept feature
    un-fixes the profile's constants it names). The key holds those instead of the two
    options, so rounds of the same plan asked for in other words share where they settle:
    ``--drop nsa --keep nsa`` is the default plan, and a share's plan keeping every dropped
    feature is the same whichever of them the scan dropped on the command line."""
    if counted is None or inputs.changed_since_key:
        return None
    drops = use.drops
    constants = effective_constants(use.profile, drops, options.keep)
    return key_of("rounds", content_key(inputs, options.replace(drop=(), keep=()),
                                        analysed_digests(index)),
                  sorted(counted), drops, constants)


def analysed_digests(index: ModuleIndex) -> dict[str, str]:
    """Path -> what the analysis reads of the file (``PythonFacts.analysis_digest``) for each
    module of ``index`` parsed without errors: what :func:`content_key` counts them by where
    a key is of what is a function of those alone."""
    return {m.path: m.facts.analysis_digest for m in index.modules.values()
            if m.facts.analysis_digest}


def stored_start(key: str | None, index: ModuleIndex) -> Retained | None:
    """The state the rounds keyed ``key`` settled from (None: not stored, no session, no
    key); the names they sought are noted in ``index`` as sought again."""
    store = current_store()
    got = store.get(SETTLING, key) if store is not None and key is not None else None
    if not isinstance(got, Settling):
        return None
    index.sought_by_name.update(got.sought)
    return got.start


def keep_start(key: str, start: Retained, index: ModuleIndex) -> None:
    """Store ``start`` (the state the settling round started from) for the next rounds
    keyed ``key``, with the names ``index`` was asked for."""
    store = current_store()
    if store is not None:
        store.put(SETTLING, key, Settling(start, frozenset(index.sought_by_name)))
