"""Pipeline, the answers of plans under other drops kept between scans: their early cut-off.

A plan under other drops (a dropped feature's share, ``analyzer.pipeline.shares``; what would
free a blocked feature, ``analyzer.pipeline.frees``) runs the rounds of the same tree with
other drops, and its asker keeps of it the plan's deletions (bare: the edits alone) and, for
what frees a feature, the fetched translation units of dead targets. That answer is a
function of what rounds read (``analyzer.pipeline.settled``): the tree as the analysis reads
it (``analyzer.pipeline.gate_verdicts.analysed_tree``: each Python module parsed without
errors by its facts and its code without comments, any other file by its bytes, the files
only counted), the scan's options and the task -- but for two fields of each deletion that
report its file's bytes, its ``sha256`` and its ``lines`` (a whole file's line count).

So an answer is kept under the analysed tree, the options, the asker and the task, and taken
with those two fields made from the files as they are now: every deletion's ``sha256`` is
its file's (``FileInfo.sha256``, as the plan stages make it), and a whole file's ``lines``
its line count (``FileInfo.lines``); a range's lines are its facts' lines. A comment edited
anywhere that moves no fact keeps every answer. The names the plan's decisions sought
tree-wide are kept with it and noted again when it is taken, as the settled rounds note
theirs (they decide which counted files a later pass parses).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar, cast

from analyzer.core.session import current_store
from analyzer.core.store import Query, key_of
from analyzer.extract.cache import PARSERS
from analyzer.model import Deletion, FileInfo
from analyzer.pipeline.gate_verdicts import analysed_tree
from analyzer.pipeline.rounds import Rounds

Extra = TypeVar("Extra")

# an asker's answer from a plan under other drops: all of depgraph, its patterns and what
# parses and lints for it
PLANS_UNDER = Query("plans-under", code=("analyzer",), data=("queries",),
                    dists=(*PARSERS, "pyflakes"))


@dataclass(frozen=True)
class KeptAnswer:
    """An answer (the plan's deletions, bare, and what else its asker keeps of the plan),
    with every name the module index had been asked for once it was made."""

    deletions: frozenset[Deletion]
    extra: object
    sought: frozenset[str]


def answer_under(rounds: Rounds, asker: str, task: object,
                 make: Callable[[], tuple[frozenset[Deletion], Extra]]
                 ) -> tuple[frozenset[Deletion], Extra]:
    """``asker``'s answer for ``task`` (``make()``), or the one kept for the same analysed
    tree, options and task, its deletions carrying their files' sha256 and line counts as
    they are now."""
    store = current_store()
    key = None
    if store is not None and rounds.counted is not None:
        tree = analysed_tree(rounds.inputs, rounds.options, rounds.counted, rounds.tree.index)
        key = key_of("plan-under", tree, asker, task) if tree is not None else None
    got = store.get(PLANS_UNDER, key) if store is not None and key is not None else None
    if isinstance(got, KeptAnswer):
        now = _as_now(rounds.tree.files, got.deletions)
        if now is not None:
            rounds.tree.index.sought_by_name.update(got.sought)
            return now, cast(Extra, got.extra)
    deletions, extra = make()
    if store is not None and key is not None:
        store.put(PLANS_UNDER, key, KeptAnswer(deletions, extra,
                                               frozenset(rounds.tree.index.sought_by_name)))
    return deletions, extra


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
