"""Plan stage, soundness: the checks of what a plan leaves -- one definition of a break,
shared with ``depgraph verify`` -- and the selection of dropped keys by live code.

- ``lint``: what one Python file binds and reads (pyflakes, ``ast``), before and after;
- ``simulate``: a file with the plan's edits applied to a parsed copy;
- ``view``: the remaining tree as the checks see it (planned, or read back from disk);
- ``breaks``: the checks themselves;
- ``conflicts``: a plan's breaks, and what to keep so that each goes away;
- ``selection``: dropped registry keys live code still produces.
"""

from analyzer.plan.check.breaks import Break, python_breaks
from analyzer.plan.check.conflicts import (
    Conflict,
    Unbuilt,
    check_plan,
    edits_by_path,
    original_breaks,
    plan_breaks,
)
from analyzer.plan.check.lint import FileLint
from analyzer.plan.check.selection import produced_keys
from analyzer.plan.check.simulate import FileSim, lint_original, simulate

__all__ = [
    "Break",
    "Conflict",
    "FileLint",
    "FileSim",
    "Unbuilt",
    "check_plan",
    "edits_by_path",
    "lint_original",
    "original_breaks",
    "plan_breaks",
    "produced_keys",
    "python_breaks",
    "simulate",
]
