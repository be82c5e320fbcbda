"""Pipeline, the gate's verdict: what each problem the gate found (``analyzer.pipeline.gate``:
``depgraph verify --before`` on the plan's applied copy) asks kept, and the rounds' state with
it kept. The analysis (``analyzer.pipeline.analyze``) continues its rounds from that state."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from analyzer.errors import GateError
from analyzer.plan.check import Conflict
from analyzer.plan.check.breaks import Break
from analyzer.plan.check.conflicts import blame_found, edits_by_path
from analyzer.plan.check.native_view import native_blame
from analyzer.plan.check.view import planned_view

if TYPE_CHECKING:
    from analyzer.pipeline.rounds import Rounds
    from analyzer.pipeline.rounds_state import Planned
    from analyzer.result import ScanResult
    from analyzer.verify.problem import VerifyProblem

# a check whose break is the native half's (what to keep: analyzer.plan.check.native_view)
_NATIVE_KINDS = ("cmake-", "op-call", "kept-target")

# the gate of one scan: (the result, its analysed tree's key: None when not to be kept)
# -> (what verify reported on the applied copy, the baseline the manifest carried)
Gate = Callable[["ScanResult", "str | None"], tuple[list["VerifyProblem"], dict[str, Any]]]


def gate_conflicts(rounds: Rounds, last: Planned, problems: list[VerifyProblem]
                   ) -> list[Conflict]:
    """What to keep so that each problem the gate found goes away: the plan's blame of the
    break each problem stands for, on the view of the tree ``last``'s plan leaves."""
    from analyzer.pipeline.rounds_state import unbuilt

    plan = last.plan
    gone = unbuilt(last)
    sims = {path: rounds.sims.simulation(path, rounds.sources, edits)
            for path, edits in sorted(edits_by_path(plan).items()) if path in rounds.sources}
    view = planned_view(plan, last.index, sims, frozenset(gone))
    build = rounds.native_build()
    out: list[Conflict] = []
    for p in problems:
        b = p.cause if p.cause is not None else Break("unknown", p.path, p.line, p.what)
        found: list[Conflict] = []
        if b.kind.startswith(_NATIVE_KINDS):
            found = [Conflict(b.path, b.line, b.what, root=k.node, keep_line=k.line)
                     for k in native_blame(b, build)]
        out.extend(found or blame_found(b, plan, view, gone))
    return list(dict.fromkeys(out))


def unsettled(problems: list[VerifyProblem]) -> GateError:
    """The error when the gate's problems keep nothing new."""
    first = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return GateError(f"the plan's applied tree fails verify and no deletion can be blamed: "
                     f"{first}{more}; no manifest written")

