"""Pipeline, the answers of plans under other drops kept between scans: their early cut-off.

A plan under other drops (a dropped feature's share, ``analyzer.pipeline.shares``; what would
free a blocked feature, ``analyzer.pipeline.frees``) runs the rounds of the same tree with
other drops, and its asker keeps of it the plan's deletions (bare: the edits alone) and, for
what frees a feature, the fetched translation units of dead targets. That answer is a
function of what the plan's rounds read, which is what the key of where they settle holds
(:func:`~analyzer.pipeline.settled.settling_key`): the tree as the analysis reads it (each
Python module parsed without errors by its facts and its code without comments, any other
file by its bytes, the files only counted), the features dropped and the constants folded --
but for two fields of each deletion that report its file's bytes, its ``sha256`` and its
``lines`` (a whole file's line count).

So an answer is kept under that key (and the features whose fetched TUs it counts), and
taken with those two fields made from the files as they are now: every deletion's ``sha256``
is its file's (``FileInfo.sha256``, as the plan stages make it), and a whole file's
``lines`` its line count (``FileInfo.lines``); a range's lines are its facts' lines. A
comment edited anywhere that moves no fact keeps every answer; and the same plan asked for in
other words shares one: the plan keeping ``flashmla`` that a scan with ``--drop nsa`` makes
for flashmla's share is the plan the default scan made for what frees flashmla (``nsa``
dropped too, ``flashmla`` kept). The names the plan's decisions sought
tree-wide are kept with it and noted again when it is taken, as the settled rounds note
theirs (they decide which counted files a later pass parses).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from analyzer.config.profile import merge_drops
from analyzer.core.session import current_store
from analyzer.core.store import Query, key_of
from analyzer.decide.profile_facts import profile_use
from analyzer.extract.cache import PARSERS
from analyzer.model import Deletion, FileInfo
from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.settled import settling_key

# an answer from a plan under other drops: all of depgraph, its patterns and what parses and
# lints for it
PLANS_UNDER = Query("plans-under", code=("analyzer",), data=("queries",),
                    dists=(*PARSERS, "pyflakes"))

# a plan's answer: its deletions (bare), and the fetched TUs of some features' dead targets
Answer = tuple[frozenset[Deletion], dict[str, int]]


@dataclass(frozen=True)
class KeptAnswer:
    """A plan's answer, with every name the module index had been asked for once it was
    made."""

    deletions: frozenset[Deletion]
    fetched: dict[str, int]
    sought: frozenset[str]


def answer_under(rounds: Rounds, drop: tuple[str, ...], keep: tuple[str, ...],
                 fetched_for: tuple[str, ...], make: Callable[[], Answer]) -> Answer:
    """The answer of the plan of ``rounds``' tree with ``drop`` and ``keep`` instead of its
    options' (``make()``; ``fetched_for``: the features whose dead targets' fetched TUs it
    counts), or the one kept for the same plan of a tree the analysis reads alike, its
    deletions carrying their files' sha256 and line counts as they are now."""
    store = current_store()
    key = _plan_key(rounds, drop, keep)
    key = key_of("plan-under", key, fetched_for) if key is not None else None
    got = store.get(PLANS_UNDER, key) if store is not None and key is not None else None
    if isinstance(got, KeptAnswer):
        now = _as_now(rounds.tree.files, got.deletions)
        if now is not None:
            rounds.tree.index.sought_by_name.update(got.sought)
            return now, dict(got.fetched)
    deletions, fetched = make()
    if store is not None and key is not None:
        store.put(PLANS_UNDER, key, KeptAnswer(deletions, fetched,
                                               frozenset(rounds.tree.index.sought_by_name)))
    return deletions, fetched


def _plan_key(rounds: Rounds, drop: tuple[str, ...], keep: tuple[str, ...]) -> str | None:
    """The key of the plan with ``drop`` and ``keep``: where its rounds settle
    (:func:`~analyzer.pipeline.settled.settling_key`: the tree as the analysis reads it, the
    features dropped and the constants folded -- so the same plan asked for in other words,
    by another scan's options and task, has the same key)."""
    profile = rounds.use.profile
    use = profile_use(profile, merge_drops(profile, drop, keep))
    return settling_key(rounds.inputs, rounds.options.replace(drop=drop, keep=keep),
                        rounds.counted, use, rounds.tree.index)


def _as_now(files: Mapping[str, FileInfo], deletions: frozenset[Deletion]
            ) -> frozenset[Deletion] | None:
    """``deletions`` with the fields that report their files' bytes made from the files as
    they are now: each deletion's ``sha256``, and a whole file's ``lines`` (a range's are
    its lines, a fact). None when a deletion's file is not in the tree."""
    out: list[Deletion] = []
    for d in deletions:
        info = files.get(d.path)
        if info is None:
            return None
        out.append(d if info.sha256 == d.sha256 else dataclasses.replace(
            d, sha256=info.sha256, lines=info.lines if d.kind == "delete_file" else d.lines))
    return frozenset(out)
