"""Pipeline, each dropped feature's share of the plan: one definition for every figure and
every partial apply.

An item is in feature F's share exactly when the plan that keeps F, all else equal, keeps
it: the deletions of the plan (every default drop) that the plan keeping F does not make --
the plan ``--keep F`` makes: the rounds of the same tree under the profile's use with F kept,
to their fixpoint (sharing this scan's caches: the facts, each module's edges, the
simulations of the files the check lints). An item in several shares goes when the last of
them is applied. One in none is other dead code when the plan keeping every
feature makes it too (dead whatever is dropped); else it is dead once any of several
features is dropped (an `if(NOT DEVICE STREQUAL "cuda")` block that cpu and tpu both fold):
in no single share, it goes with any of the features that decided it.
"""

from __future__ import annotations

from analyzer.config.profile import effective_cmake_options, merge_drops
from analyzer.decide.profile_facts import profile_use
from analyzer.model import Deletion
from analyzer.pipeline.rounds import Rounds, evaluated
from analyzer.pipeline.rounds_state import Planned
from analyzer.plan.feature_sets import bare


def feature_shares(rounds: Rounds, last: Planned) -> dict[str, frozenset[Deletion]]:
    """Each dropped feature -> its share of ``last``'s plan (deletions, :func:`bare`), and
    under ``""`` the deletions the plan keeping every feature makes too (other dead code)."""
    use, options = rounds.use, rounds.options
    if use.profile is None or not use.drops:
        return {}
    planned = frozenset(bare(d) for d in last.plan.deletions)
    out: dict[str, frozenset[Deletion]] = {}
    for name in (*use.drops, ""):
        keep = (*options.keep, name) if name else (*options.keep, *use.drops)
        kept = plan_under(rounds, options.drop, keep)
        made = frozenset(bare(d) for d in kept.plan.deletions)
        out[name] = planned & made if not name else planned - made
        kept.graph.clear()  # (its memory goes now: one counterfactual graph at a time)
    return out


def plan_under(rounds: Rounds, drop: tuple[str, ...], keep: tuple[str, ...]) -> Planned:
    """The plan of the same tree with ``drop`` and ``keep`` instead of the run's: the rounds
    to their fixpoint, sharing the run's caches (the facts, each module's edges, the
    simulations of the files the check lints)."""
    profile = rounds.use.profile
    drops = merge_drops(profile, drop, keep)
    tree = evaluated(rounds.tree, effective_cmake_options(profile, drops))
    other = Rounds(rounds.inputs, rounds.options.replace(drop=drop, keep=keep),
                   profile_use(profile, drops), tree, rounds.scope, rounds.sources,
                   rounds.timer, rounds.sims, rounds.edge_memo, rounds.tree_key,
                   tree_version=rounds.tree_version, jobs=rounds.jobs,
                   baseline=rounds.baseline)
    return other.run()
