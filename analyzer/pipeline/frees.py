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
from analyzer.pipeline.plans_under import in_worker, plan_under, taken_back
from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.rounds_state import Planned
from analyzer.pipeline.timing import StageTimer
from analyzer.plan.feature_sets import bare
from analyzer.plan.native import leaving_tus
from analyzer.util.parallel import forked_map

CANDIDATES = 1  # further drops tried per blocked feature (two plans each)


def what_frees(rounds: Rounds, last: Planned, blockers: Mapping[str, list[Blocker]],
               shares: Mapping[str, frozenset[Deletion]]) -> dict[str, Freeing]:
    """Each dropped feature with blockers -> the further drop that frees the most of it (by
    lines), or a :class:`Freeing` without drops saying none does. The plans are made per
    further drop (the plan with it is shared by the features it is tried for), in forked
    workers with several jobs (each returns its rows: ``analyzer.util.parallel``)."""
    profile = rounds.use.profile
    if profile is None:
        return {}
    dropped = set(rounds.use.drops)
    others = [f for name, f in profile.features.items()
              if name not in dropped and name not in rounds.options.keep]
    tried: dict[str, list[str]] = {}  # blocked feature -> the further drops tried
    for name in rounds.use.drops:
        found = [b for b in blockers.get(name, []) if b.group != "test" and b.blocks]
        if not found:
            continue
        ranked = sorted(((sum(1 for b in found if _in(b, g, last)), g.name) for g in others),
                        key=lambda t: (-t[0], t[1]))
        tried[name] = [other for covered, other in
                       itertools.takewhile(lambda t: t[0] > 0, ranked[:CANDIDATES])]
    by_drop: dict[str, list[str]] = {}  # a further drop -> the features it is tried for
    for name, drops in tried.items():
        for other in drops:
            by_drop.setdefault(other, []).append(name)

    def rows(other: str, timer: StageTimer, jobs: int, inherit: bool = False
             ) -> dict[str, tuple[int, int, int]]:
        """Each feature tried with ``other`` dropped too -> its row in that plan (``inherit``:
        in a forked worker, whose plans continue the run's memos: the plans keeping each
        feature come first, since each patches the graph the plan with ``other`` dropped,
        which the rows read, is made on)."""
        drop = (*rounds.options.drop, other)
        kept: dict[str, frozenset[Deletion]] = {}
        for name in by_drop[other]:
            keeping = plan_under(rounds, drop, (*rounds.options.keep, name), timer, jobs,
                                 inherit)
            kept[name] = frozenset(bare(d) for d in keeping.plan.deletions)
            if not inherit:
                keeping.graph.clear()
        with_it = plan_under(rounds, drop, rounds.options.keep, timer, jobs, inherit)
        made = frozenset(bare(d) for d in with_it.plan.deletions)
        out = {name: _row(made - kept[name], with_it, name) for name in by_drop[other]}
        if not inherit:
            with_it.graph.clear()
        return out

    def rows_in_worker(other: str, timer: StageTimer, jobs: int
                       ) -> dict[str, tuple[int, int, int]]:
        return rows(other, timer, jobs, True)

    drops = sorted(by_drop)
    if rounds.jobs > 1 and len(drops) > 1:
        made = taken_back(rounds, forked_map(in_worker(rounds, rows_in_worker), drops, rounds.jobs,
                                             chunks_per_job=len(drops)))
    else:
        made = [rows(other, rounds.timer, rounds.jobs) for other in drops]
    then = dict(zip(drops, made, strict=True))
    out: dict[str, Freeing] = {}
    for name, candidates in tried.items():
        now = _row(shares.get(name, frozenset()), last, name)
        best: Freeing | None = None
        for other in candidates:
            row = then[other][name]
            gain = Freeing(name, (other,), row[0] - now[0], row[1] - now[1], row[2] - now[2])
            if gain.lines > 0 and (best is None or gain.lines > best.lines):
                best = gain
        out[name] = dataclasses.replace(best, tried=tuple(candidates)) if best is not None \
            else Freeing(name, (), 0, 0, 0, tuple(candidates))
    return out


def _in(b: Blocker, feature: Feature, last: Planned) -> bool:
    """The blocker's live code belongs to ``feature`` (its paths, or its node's claims)."""
    if b.file and feature.paths and any_path_matches([b.file], tuple(feature.paths)):
        return True
    data = last.graph.nodes.get(b.src)
    return data is not None and feature_of_node(data, [feature]) == feature.name


def _row(share: Iterable[Deletion], planned: Planned, name: str) -> tuple[int, int, int]:
    """(files, lines, TUs) of a share, as the terminal's feature row counts them: its whole
    files, its lines, its TU files and the fetched TUs of the feature's dead targets."""
    share = list(share)
    use = planned.use
    features = [f for f in use.features if f.name == name]
    targets = {node.split(":", 1)[1] for node, owner in feature_nodes(
        planned.graph, features, use.kept_features).items()
        if owner == name and node.startswith("target:")} if features else set()
    tus = leaving_tus(share, planned.native_summary.dead_targets, targets,
                      planned.native.compiled_by)
    return (sum(1 for d in share if d.kind == "delete_file"), sum(d.lines for d in share),
            sum(n for n, _targets in tus))
