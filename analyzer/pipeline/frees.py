"""Pipeline, what would free a blocked feature -- and what it would yield.

A dropped feature F with blocked items is kept by blockers: live code that enters it. Where
that code belongs to another feature G of the profile that this run keeps (its paths hold the
blocker's file, or the blocker's node is one of G's), dropping G too may free F. For the
candidate covering the most of F's blockers (``CANDIDATES`` at most are tried, one further
drop each: the smallest change first), the plan with G dropped as well is made and F's
share in it computed by the one definition (``analyzer.pipeline.shares``: that plan less the
plan that also keeps F); the yield is F's row then minus F's row now, in the figures the
terminal prints (files, lines, translation units). When no further drop frees anything (no
kept feature's code holds the blockers, or the one tried frees nothing) the answer says so:
the blockers are then the edits. Defaults that select a dropped key are not re-planned:
their blockers say what changing each alone frees (``analysis.blockers``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Mapping

from analyzer.analysis.blockers import Blocker
from analyzer.analysis.features import feature_nodes, feature_of_node
from analyzer.analysis.freeing import Freeing
from analyzer.config.globs import any_path_matches
from analyzer.config.types import Feature
from analyzer.model import Deletion
from analyzer.pipeline.plans_kept import answer_under
from analyzer.pipeline.plans_under import PlansUnder, plan_under
from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.rounds_state import Planned
from analyzer.pipeline.timing import StageTimer
from analyzer.plan.feature_sets import bare
from analyzer.plan.native import leaving_tus

CANDIDATES = 1  # further drops tried per blocked feature (two plans each)


class PendingFrees:
    """What would free each blocked feature, to be made: the plans -- with each further
    drop, one keeping each feature it is tried for and one keeping none (shared by the
    features it is tried for) -- are independent of each other and of the gate; with several
    jobs they are made in forked workers (``analyzer.pipeline.plans_under``, one plan a task,
    after the shares' in the same workers) from the moment the blockers are known, while
    this process goes on (the gate verifies the plan meanwhile). :meth:`result` waits for
    them, or makes them here with one job."""

    def __init__(self, rounds: Rounds, last: Planned,
                 blockers: Mapping[str, list[Blocker]]) -> None:
        self._rounds, self._last = rounds, last
        profile = rounds.use.profile
        dropped = set(rounds.use.drops)
        others = [f for name, f in (profile.features.items() if profile is not None else ())
                  if name not in dropped and name not in rounds.options.keep]
        # a blocked feature -> the further drops tried (its blockers' kept features)
        self.tried: dict[str, list[str]] = {}
        for name in rounds.use.drops if profile is not None else ():
            found = [b for b in blockers.get(name, []) if b.group != "test" and b.blocks]
            if not found:
                continue
            ranked = sorted(((sum(1 for b in found if _in(b, g, last)), g.name)
                             for g in others), key=lambda t: (-t[0], t[1]))
            self.tried[name] = [other for covered, other in
                                itertools.takewhile(lambda t: t[0] > 0, ranked[:CANDIDATES])]
        # a further drop -> the features it is tried for
        self._by_drop: dict[str, list[str]] = {}
        for name, drops in self.tried.items():
            for other in drops:
                self._by_drop.setdefault(other, []).append(name)
        self.tasks = [(other, name) for other in sorted(self._by_drop)
                      for name in (*self._by_drop[other], "")]
        self._pool: PlansUnder | None = None

    def started(self, pool: PlansUnder | None) -> None:
        """Its plans are being made by ``pool`` (None: here, when asked)."""
        self._pool = pool

    @property
    def wanted(self) -> bool:
        """Some dropped feature is blocked (the answer has a row)."""
        return bool(self.tried)

    def result(self, shares: Mapping[str, frozenset[Deletion]]) -> dict[str, Freeing]:
        """Each dropped feature with blockers -> the further drop that frees the most of it
        (by lines), or a :class:`Freeing` without drops saying none does (``shares``: each
        dropped feature's share of the plan, ``analyzer.pipeline.shares``)."""
        rounds, tasks = self._rounds, self.tasks
        plans: list[tuple[frozenset[Deletion], dict[str, int]]]
        if self._pool is not None:
            plans = self._pool.answers(self)
            self._pool = None
        else:
            plans = [self._made(task, rounds.timer, rounds.jobs, False) for task in tasks]
        by_task = dict(zip(tasks, plans, strict=True))
        then: dict[str, dict[str, tuple[int, int, int]]] = {}
        for other, names in self._by_drop.items():
            with_it, fetched = by_task[(other, "")]
            then[other] = {name: _row(with_it - by_task[(other, name)][0], fetched[name])
                           for name in names}
        out: dict[str, Freeing] = {}
        for name, candidates in self.tried.items():
            now = _row(shares.get(name, frozenset()), _fetched(self._last, name))
            best: Freeing | None = None
            for other in candidates:
                row = then[other][name]
                gain = Freeing(name, (other,), row[0] - now[0], row[1] - now[1],
                               row[2] - now[2])
                if gain.lines > 0 and (best is None or gain.lines > best.lines):
                    best = gain
            out[name] = dataclasses.replace(best, tried=tuple(candidates)) \
                if best is not None else Freeing(name, (), 0, 0, 0, tuple(candidates))
        return out

    def in_worker(self, task: tuple[str, str], timer: StageTimer, jobs: int
                   ) -> tuple[frozenset[Deletion], dict[str, int]]:
        """:meth:`_made` in a forked worker: on its copy of the run's memos."""
        return self._made(task, timer, jobs, True)

    def _made(self, task: tuple[str, str], timer: StageTimer, jobs: int, inherit: bool
              ) -> tuple[frozenset[Deletion], dict[str, int]]:
        """The deletions of the plan with the further drop ``other`` and also keeping
        ``name`` (``""``: keeping none of the features tried) and, for the latter, the fetched
        TUs of each tried feature's dead targets in it (``inherit``: in a forked worker, the
        plan continues the run's memos, its graph read before the next plan patches it);
        or what is kept of the same plan (``analyzer.pipeline.plans_kept``)."""
        rounds = self._rounds
        other, name = task
        drop = (*rounds.options.drop, other)
        keep = (*rounds.options.keep, name) if name else rounds.options.keep
        fetched_for = () if name else tuple(self._by_drop[other])
        return answer_under(rounds, drop, keep, fetched_for,
                            lambda: self._planned(drop, keep, fetched_for, timer, jobs, inherit))

    def _planned(self, drop: tuple[str, ...], keep: tuple[str, ...],
                 fetched_for: tuple[str, ...], timer: StageTimer, jobs: int, inherit: bool
                 ) -> tuple[frozenset[Deletion], dict[str, int]]:
        planned = plan_under(self._rounds, drop, keep, timer, jobs, inherit)
        out = frozenset(bare(d) for d in planned.plan.deletions)
        fetched = {f: _fetched(planned, f) for f in fetched_for}
        if not inherit:
            planned.graph.clear()
        return out, fetched


def _in(b: Blocker, feature: Feature, last: Planned) -> bool:
    """The blocker's live code belongs to ``feature`` (its paths, or its node's claims)."""
    if b.file and feature.paths and any_path_matches([b.file], tuple(feature.paths)):
        return True
    data = last.graph.nodes.get(b.src)
    return data is not None and feature_of_node(data, [feature]) == feature.name


def _row(share: Iterable[Deletion], fetched: int) -> tuple[int, int, int]:
    """(files, lines, TUs) of a share, as the terminal's feature row counts them: its whole
    files, its lines, its TU files and ``fetched``: the fetched TUs of the feature's dead
    targets (:func:`_fetched`)."""
    share = list(share)
    tus = leaving_tus(share, (), (), {})
    return (sum(1 for d in share if d.kind == "delete_file"), sum(d.lines for d in share),
            sum(n for n, _targets in tus) + fetched)


def _fetched(planned: Planned, name: str) -> int:
    """The fetched TUs of the dead targets of feature ``name`` in ``planned``."""
    use = planned.use
    features = [f for f in use.features if f.name == name]
    targets = {node.split(":", 1)[1] for node, owner in feature_nodes(
        planned.graph, features, use.kept_features).items()
        if owner == name and node.startswith("target:")} if features else set()
    return sum(n for n, _targets in leaving_tus((), planned.native_summary.dead_targets,
                                                 targets, {}))
