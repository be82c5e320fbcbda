"""Benchmark: where a scan's time goes -- real seconds of the pipeline's large steps, and the
rules that fired in each run of the rounds.

``--timings`` gives each stage's seconds, but a stage is entered by many plans (the scan's
own, each plan under other drops that the shares and what-frees make, the gate's copy) and a
profiler (cProfile) multiplies the cost of Python calls unevenly: tight loops and pyflakes
look several times dearer than they are. This runs ``depgraph scan`` in this process
(depgraph's own code, never the scanned tree's) with ``--jobs 1`` -- so every plan, the
gate's copy included, runs here and is seen -- and times a fixed list of functions with
``time.perf_counter`` (a call inside a call of the same function counts once), then prints:

- per function: the seconds, the calls, and the share of the scan's wall time (the steps
  nest: ``plan_under`` holds rounds, rounds hold graph builds and checks);
- per run of the rounds (:meth:`~analyzer.pipeline.rounds.Rounds.run`): its seconds, how
  many rounds it ran, the seconds of its first round (a plan under other drops builds its
  graph and checks its plan whole there; the later rounds patch and re-check) and, in
  order, the rule that kept something new in each (``unused_roots``,
  ``present``, ``selected``, ``conflicts``, ``freed``) -- what made the fixpoint take the
  rounds it took.

    python bench/hot_spots.py TREE --roots deepseek_v2 [--cache-dir DIR] [scan options]

Give a fresh ``--cache-dir`` for a cold scan (a warm one answers from the result cache; add
``--no-result-cache`` for a re-analysis). The wrappers cost a little per call: the figures of
functions called hundreds of thousands of times are left out of the list on purpose.
"""

from __future__ import annotations

import functools
import importlib
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# (module, attribute): the steps timed; "Class.method" for a method
STEPS: tuple[tuple[str, str], ...] = (
    ("analyzer.pipeline.plans_under", "plan_under"),
    ("analyzer.pipeline.gate", "verify_applied"),
    ("analyzer.pipeline.rounds", "Rounds._round"),
    ("analyzer.pipeline.rounds", "Rounds._rules"),
    ("analyzer.extract.runner", "extract_bytes"),
    ("analyzer.graph.rounds_graph", "RoundGraph.build"),
    ("analyzer.graph.python", "module_layer"),
    ("analyzer.plan.check.conflicts", "plan_breaks"),
    ("analyzer.plan.check_cache", "CheckCache.prefetch_all"),
    ("analyzer.plan.check.lint", "undefined_names"),
    ("analyzer.analysis.liveness", "_traverse"),
    ("analyzer.decide.guards", "fold_contexts"),
    ("analyzer.plan.python", "build_plan"),
    ("analyzer.plan.python", "plan_peripheral"),
    ("analyzer.util.pickling", "dump"),
    ("analyzer.util.pickling", "loads"),
    ("analyzer.codemod.apply", "run_apply"),
    # what every round does over the whole tree (the per-module parts are memoised)
    ("analyzer.pipeline.rounds", "Rounds._graph_stage"),
    ("analyzer.pipeline.rounds", "Rounds._registries"),
    ("analyzer.graph.native", "add_native_graph"),
    ("analyzer.graph.profile_edges", "add_profile_edges"),
    ("analyzer.pipeline.rounds", "Rounds._roots"),
    ("analyzer.pipeline.rounds", "Rounds._liveness"),
    ("analyzer.analysis.liveness", "compute_liveness"),
    ("analyzer.analysis.liveness", "extend_liveness"),
    ("analyzer.plan.python", "plan_folded"),
    ("analyzer.plan.python", "needed_reexports"),
    ("analyzer.plan.native", "plan_native"),
    ("analyzer.plan.check.selection", "produced_keys"),
    ("analyzer.plan.check.conflicts", "check_plan"),
    ("analyzer.plan.check.view", "planned_view"),
    ("analyzer.plan.check.breaks", "python_breaks"),
)
RULES = ("_unused_roots", "_present", "_selected", "_conflicts", "_freed")


class Clock:
    """Seconds and calls per step; a call inside a call of the same step counts once."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self._open: Counter[str] = Counter()

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if self._open[name]:
                return fn(*args, **kwargs)
            self._open[name] += 1
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self._open[name] -= 1
                self.seconds[name] += time.perf_counter() - started
                self.calls[name] += 1

        return timed


def _install(clock: Clock) -> None:
    """Wrap each step where it is defined and in every module of depgraph that imported it
    by name (``from analyzer.plan.python import build_plan``)."""
    for module_name, _ in STEPS:
        importlib.import_module(module_name)
    for module_name, attribute in STEPS:
        module = sys.modules[module_name]
        owner_name, _, method = attribute.rpartition(".")
        owner = getattr(module, owner_name) if owner_name else module
        name = method or attribute
        real = getattr(owner, name)
        timed = clock.wrap(attribute, real)
        setattr(owner, name, timed)
        if not owner_name:
            for other in list(sys.modules.values()):
                if getattr(other, "__name__", "").startswith("analyzer.") \
                        and getattr(other, name, None) is real:
                    setattr(other, name, timed)


@dataclass
class Run:
    """One run of the rounds: its seconds, each round's (the round and its rules), and the
    rules that kept more, in order."""

    seconds: float = 0.0
    rounds: list[float] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)


def _log_rules(runs: list[Run]) -> None:
    """Record, per run of the rounds, its seconds, each round's seconds (from the start of
    the round to the start of the next, or the run's end) and the name of each rule that
    returned a new state (the one that gave the next round its state)."""
    from analyzer.pipeline.rounds import Rounds

    real_run, real_round = Rounds.run, Rounds._round
    round_started: list[float] = []

    def run(self: Rounds, state: Any = None) -> Any:
        runs.append(Run())
        started = time.perf_counter()
        try:
            return real_run(self, state)
        finally:
            end = time.perf_counter()
            runs[-1].seconds = end - started
            if round_started:
                runs[-1].rounds.append(end - round_started.pop())

    def one_round(self: Rounds, state: Any) -> Any:
        now = time.perf_counter()
        if round_started:  # (the last round ends where this one starts)
            runs[-1].rounds.append(now - round_started.pop())
        round_started.append(now)
        return real_round(self, state)

    def ruled(name: str, rule: Callable[..., Any], static: bool) -> Callable[..., Any]:
        def call(*args: Any) -> Any:  # ((self,) last, state)
            after = rule(*args)
            if after != args[-1] and runs:
                runs[-1].fired.append(name.strip("_"))
            return after

        return staticmethod(call) if static else call

    Rounds.run = run  # type: ignore[method-assign]
    Rounds._round = one_round  # type: ignore[method-assign]
    for name in RULES:
        static = isinstance(Rounds.__dict__[name], staticmethod)
        setattr(Rounds, name, ruled(name, getattr(Rounds, name), static))


def main(argv: list[str]) -> int:
    from analyzer.cli.main import main as cli
    from analyzer.pipeline import scan  # noqa: F401  (the pipeline, imported before wrapping)

    clock = Clock()
    _install(clock)
    runs: list[Run] = []
    _log_rules(runs)
    started = time.perf_counter()
    try:
        cli.main(["scan", *argv, "--jobs", "1", "--quiet"], standalone_mode=False)
    finally:
        wall = time.perf_counter() - started
        print(f"scan: {wall:.1f} s wall, one process\n")
        print("| step | s | calls | share of the wall |\n|---|---:|---:|---:|")
        for name, seconds in clock.seconds.most_common():
            print(f"| {name} | {seconds:.2f} | {clock.calls[name]:,} | "
                  f"{seconds / wall:.0%} |")
        print("\n| run of the rounds | s | rounds | first round s | rules that kept more, in "
              "order |\n|---:|---:|---:|---:|---|")
        for i, r in enumerate(runs, 1):
            first = f"{r.rounds[0]:.2f}" if r.rounds else "-"
            print(f"| {i} | {r.seconds:.2f} | {len(r.rounds)} | {first} | "
                  f"{' '.join(r.fired) or '-'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
