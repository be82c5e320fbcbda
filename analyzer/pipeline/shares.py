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

The plans keeping each feature are independent of each other: with several jobs they are
made in forked workers (``analyzer.pipeline.plans_under``, with the plans of what frees a
blocked feature) while the scan's own process goes on to the gate; their stage seconds are
then the wait for them once the gate is done, as ``shares``.
"""

from __future__ import annotations

from analyzer.model import Deletion
from analyzer.pipeline.plans_kept import answer_under
from analyzer.pipeline.plans_under import PlansUnder, plan_under
from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.rounds_state import Planned
from analyzer.pipeline.timing import StageTimer
from analyzer.plan.feature_sets import bare


class PendingShares:
    """Each dropped feature's share of a plan, to be made: with several jobs the plans
    keeping each feature are made in forked workers (``analyzer.pipeline.plans_under``:
    started with :meth:`PlansUnder <analyzer.pipeline.plans_under.PlansUnder>`, with the
    plans of what frees a blocked feature) while this process goes on (the gate verifies
    the plan meanwhile); :meth:`result` waits for them, or makes them here with one job."""

    def __init__(self, rounds: Rounds, last: Planned) -> None:
        self._rounds = rounds
        use = rounds.use
        self.tasks: tuple[str, ...] = (*use.drops, "") \
            if use.profile is not None and use.drops else ()
        self._planned = frozenset(bare(d) for d in last.plan.deletions)
        self._pool: PlansUnder | None = None

    def started(self, pool: PlansUnder | None) -> None:
        """Its plans are being made by ``pool`` (None: here, when asked)."""
        self._pool = pool

    def result(self) -> dict[str, frozenset[Deletion]]:
        """Each dropped feature -> its share; ``""`` -> the other dead code."""
        rounds = self._rounds
        if self._pool is not None:
            with rounds.timer("shares"):  # (the wait: what the workers took beyond the gate)
                made = dict(zip(self.tasks, self._pool.answers(self), strict=True))
            self._pool = None
        else:
            made = {name: self._made(name, rounds.timer, rounds.jobs, False)
                    for name in self.tasks}
        planned = self._planned
        return {name: planned - made[name] if name else planned & made[name]
                for name in self.tasks}

    def in_worker(self, name: str, timer: StageTimer, jobs: int) -> frozenset[Deletion]:
        """:meth:`_made` in a forked worker: on its copy of the run's memos."""
        return self._made(name, timer, jobs, True)

    def _made(self, name: str, timer: StageTimer, jobs: int, inherit: bool
              ) -> frozenset[Deletion]:
        """The deletions of the plan keeping ``name`` (every dropped feature: ``""``), or
        those kept of the same plan (``analyzer.pipeline.plans_kept``)."""
        rounds = self._rounds
        options = rounds.options
        keep = (*options.keep, name) if name else (*options.keep, *rounds.use.drops)
        return answer_under(rounds, options.drop, keep, (), lambda: (
            self._planned_keeping(keep, timer, jobs, inherit), {}))[0]

    def _planned_keeping(self, keep: tuple[str, ...], timer: StageTimer, jobs: int,
                         inherit: bool) -> frozenset[Deletion]:
        rounds = self._rounds
        kept = plan_under(rounds, rounds.options.drop, keep, timer, jobs, inherit)
        out = frozenset(bare(d) for d in kept.plan.deletions)
        if not inherit:  # (its memory goes now: one counterfactual graph at a time; an
            #                inherited graph is patched by the next plan instead)
            kept.graph.clear()
        return out
