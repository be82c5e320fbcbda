"""Pipeline, each dropped feature's share of the plan: one definition for every figure and
every partial apply.

An item is in feature F's share exactly when the plan that keeps F, all else equal, keeps
it: the deletions of the plan (every default drop) that the plan keeping F does not make.
"All else equal": the same tree, the other drops, and the state the soundness rounds settled
on (what they kept, the keys they blocked, the arms and clauses they folded), less what was
about F's own keys -- one round of the rounds' machinery under the profile's use with F
kept (:meth:`analyzer.pipeline.rounds.Rounds.plan_of`). An item in several shares goes when
the last of them is applied. One in none is other dead code when the plan keeping every
feature makes it too (dead whatever is dropped); else it is dead once any of several
features is dropped (an `if(NOT DEVICE STREQUAL "cuda")` block that cpu and tpu both fold):
in no single share, it goes with any of the features that decided it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from analyzer.config.profile import effective_cmake_options, merge_drops
from analyzer.decide.profile_facts import profile_use
from analyzer.model import Deletion
from analyzer.pipeline.rounds import Planned, Retained, Rounds, evaluated
from analyzer.plan.feature_sets import bare


def feature_shares(rounds: Rounds, last: Planned) -> dict[str, frozenset[Deletion]]:
    """Each dropped feature -> its share of ``last``'s plan (deletions, :func:`bare`), and
    under ``""`` the deletions the plan keeping every feature makes too (other dead code)."""
    use, options = rounds.use, rounds.options
    profile = use.profile
    if profile is None or not use.drops:
        return {}
    planned = frozenset(bare(d) for d in last.plan.deletions)
    out: dict[str, frozenset[Deletion]] = {}
    for name in (*use.drops, ""):
        keep = (*options.keep, name) if name else (*options.keep, *use.drops)
        drops = merge_drops(profile, options.drop, keep)
        kept_use = profile_use(profile, drops)
        tree = evaluated(rounds.tree, effective_cmake_options(profile, drops), rounds.cache)
        other = Rounds(rounds.inputs, options.replace(keep=keep), kept_use,
                       tree, rounds.scope, rounds.sources, rounds.timer, rounds.sims,
                       rounds.edge_memo, rounds.cache, rounds.tree_key,
                       tree_version=rounds.tree_version, jobs=rounds.jobs,
                       baseline=rounds.baseline)
        keys = _keys_of(profile.features[n] for n in use.drops if n not in drops)
        with rounds.timer("plan"):
            kept = other.plan_of(_without_keys(rounds.settled, keys))
        made = frozenset(bare(d) for d in kept.plan.deletions)
        out[name] = planned & made if not name else planned - made
        kept.graph.clear()  # (its memory goes now: one counterfactual graph at a time)
    return out


def _keys_of(features: Iterable[object]) -> frozenset[str]:
    """The registry keys (integers as decimal text) of ``features``."""
    out: set[str] = set()
    for f in features:
        for keys in getattr(f, "registry_keys", {}).values():
            out.update(keys)
        for ints in getattr(f, "registry_int_keys", {}).values():
            out.update(str(k) for k in ints)
    return frozenset(out)


def _without_keys(state: Retained, keys: frozenset[str]) -> Retained:
    """``state`` less what it holds about ``keys`` (the keys of features the counterfactual
    keeps): those keys blocked, the arms and clauses folded for them, the peripheral files
    that go for selecting them."""
    if not keys:
        return state

    def about(text: str) -> bool:
        return any(f"dropped key {k!r}" in text or f"dropped key {k} " in text for k in keys)

    return dataclasses.replace(
        state,
        blocked={k: v for k, v in state.blocked.items() if k not in keys},
        arms={m: kept for m, rs in state.arms.items()
              if (kept := tuple(r for r in rs if not about(r.reason)))},
        forced={c: kv for c, kv in state.forced.items() if kv[0] not in keys},
        selectors={p: why for p, why in state.selectors.items() if not about(why)})
