"""Pipeline, plans of the same tree under other drops: what each dropped feature's share
(``analyzer.pipeline.shares``) and what would free a blocked feature
(``analyzer.pipeline.frees``) are made of.

:func:`plan_under` runs the rounds to their fixpoint with other drops and keeps, sharing the
scan's caches (the facts, each module's edges, the simulations of the files the check
lints). Such plans are independent of each other: with several jobs they are made in forked
workers (``analyzer.util.parallel``), each on the scan's state as it is when they fork.
:func:`in_worker` wraps the function a worker runs so that it hands back, with its answer,
what it added to the caches the scan keeps (module edges, lints) and the names its decisions
sought tree-wide; :func:`taken_back` adds that to the scan's, so that the scan goes on (and the
next scan starts) as if the plans had been made in this process. The sought names matter to
the answer, not only to the speed: a plan under other drops may decide by the absence of a
name that a file the demand-driven extraction only counted would define, and the scan parses
such files and analyses again (``analyzer.pipeline.analyze``, ``_counted_reached``) -- a
worker's names not handed back would leave them unparsed and its labels made without them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from analyzer.config.profile import effective_cmake_options, merge_drops
from analyzer.decide.profile_facts import profile_use
from analyzer.graph.python import ModuleRecord
from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.rounds_state import Planned
from analyzer.pipeline.timing import StageTimer
from analyzer.plan.check_cache import Entry
from analyzer.resolve.tree import evaluated
from analyzer.util.parallel import Forked, forked_start, forks

Item = TypeVar("Item")
Answer = TypeVar("Answer")


def plan_under(rounds: Rounds, drop: tuple[str, ...], keep: tuple[str, ...],
               timer: StageTimer | None = None, jobs: int | None = None,
               inherit: bool = False) -> Planned:
    """The plan of the same tree with ``drop`` and ``keep`` instead of the run's: the rounds
    to their fixpoint, sharing the run's caches (the facts, each module's edges, the
    simulations of the files the check lints). ``timer``: where its stages' seconds go,
    ``jobs``: its worker processes (the run's by default); ``inherit``: its rounds continue
    the run's memos, its graph patched from the run's last one (only in a forked worker,
    which never reads the run's graph again)."""
    profile = rounds.use.profile
    drops = merge_drops(profile, drop, keep)
    tree = evaluated(rounds.tree, effective_cmake_options(profile, drops))
    other = Rounds(rounds.inputs, rounds.options.replace(drop=drop, keep=keep),
                   profile_use(profile, drops), tree, rounds.scope, rounds.sources,
                   timer or rounds.timer, rounds.sims, rounds.edge_memo, rounds.tree_key,
                   tree_version=rounds.tree_version,
                   jobs=rounds.jobs if jobs is None else jobs,
                   baseline=rounds.baseline, inherit=rounds if inherit else None,
                   counted=rounds.counted)
    return other.run()


@dataclass(frozen=True)
class Handed(Generic[Answer]):
    """A worker's answer, with what it added to the scan's kept caches: the module edges it
    recorded (under the edge memo's key) and the lints it answered."""

    answer: Answer
    edges_key: tuple[object, ...] | None
    edges: list[tuple[str, object, ModuleRecord]]
    lints: tuple[dict[str, Entry], int]
    sought: frozenset[str]  # names its decisions sought tree-wide that the scan had not


def in_worker(rounds: Rounds, fn: Callable[[Item, StageTimer, int], Answer]
              ) -> Callable[[Item], Handed[Answer]]:
    """``fn(item, timer, jobs)`` as a forked worker runs it: its stages on a timer of its
    own (they are not the scan's), its pools' work done itself (one job), and what it adds
    to the scan's kept caches handed back with its answer. A plan it makes should inherit
    the run's memos (:func:`plan_under`): the worker's copy of them is its own."""

    def run(item: Item) -> Handed[Answer]:
        memo, sims, index = rounds.edge_memo, rounds.sims, rounds.tree.index
        memo.logging()
        sims.mark()
        sims.jobs = 1
        sought = frozenset(index.sought_by_name)
        answer = fn(item, StageTimer(), 1)
        return Handed(answer, memo.global_key, list(memo.log or []), sims.taken(),
                      frozenset(index.sought_by_name - sought))

    return run


def taken_back(rounds: Rounds, handed: Sequence[Handed[Answer]]) -> list[Answer]:
    """The workers' answers, once what they added to the kept caches and the names they
    sought are the scan's too."""
    for one in handed:
        rounds.edge_memo.absorb(one.edges_key, one.edges)
        rounds.sims.absorb(one.lints)
        rounds.tree.index.sought_by_name.update(one.sought)
    return [one.answer for one in handed]


class Asker(Protocol):
    """What asks for plans under other drops (the shares, what frees a feature): its tasks,
    and how a forked worker makes one (on its copy of the run's memos)."""

    @property
    def tasks(self) -> Sequence[Any]: ...

    def in_worker(self, task: Any, timer: StageTimer, jobs: int) -> Any: ...

    def started(self, pool: PlansUnder | None) -> None:
        """Its plans are being made by ``pool`` (None: none forked, it makes them itself)."""


class PlansUnder:
    """The plans of several askers, started together in one set of forked workers (with
    several jobs), each worker making its tasks in order and continuing its own memos from
    one plan to the next -- a later plan patches the graph and folds from what an earlier
    one did in that worker, whichever asker asked for it. Each asker is told the pool makes
    its plans (:meth:`Asker.started`; with one job, or where processes do not fork, it is
    told none does) and takes its answers from :meth:`answers`, waiting for its own plans
    only."""

    def __init__(self, rounds: Rounds, askers: Sequence[Asker]) -> None:
        self._rounds = rounds
        self._askers = list(askers)
        pairs = [(k, task) for k, asker in enumerate(self._askers) for task in asker.tasks]
        self._forked: Forked | None = None
        self._answered: set[int] = set()
        if forks(rounds.jobs, len(pairs)):  # (never in this process: the plans inherit)
            self._forked = forked_start(in_worker(rounds, self._made), pairs, rounds.jobs,
                                        chunks_per_job=len(pairs))
        for asker in self._askers:
            asker.started(self if self._forked is not None else None)

    @property
    def forked(self) -> bool:
        """Whether the plans are being made in forked workers (not in this process)."""
        return self._forked is not None

    def _made(self, pair: tuple[int, Any], timer: StageTimer, jobs: int) -> Any:
        k, task = pair
        return self._askers[k].in_worker(task, timer, jobs)

    def answers(self, asker: Asker) -> list[Any]:
        """``asker``'s answers, in its tasks' order, once what its workers added to the kept
        caches is the run's too (waiting for its plans only: the workers go on with the
        others meanwhile; the workers end once every asker has its answers)."""
        assert self._forked is not None
        k = self._askers.index(asker)
        start = sum(len(one.tasks) for one in self._askers[:k])
        got: list[Handed[Any]] = self._forked.results_of(start, start + len(asker.tasks))
        self._answered.add(k)
        if len(self._answered) == len(self._askers):
            self.cancel()
        return taken_back(self._rounds, got)

    def cancel(self) -> None:
        """The plan changed (the gate blamed some of it): no plan started is wanted."""
        if self._forked is not None:
            self._forked.cancel()
            self._forked = None
