"""Verify stage: one problem a check found, printed ``path:line: what``, with the break it
stands for (``cause``): what the plan's gate (``analyzer.pipeline.gate``) blames on the
deletions that made it."""

from __future__ import annotations

from dataclasses import dataclass, field

from analyzer.plan.check.breaks import Break


@dataclass(frozen=True, order=True)
class VerifyProblem:
    path: str
    line: int
    what: str
    # the break as the checks found it (its kind, and the module and name it needs); not
    # part of the problem's value: two checks finding the same problem report it once
    cause: Break | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def problem_of(b: Break) -> VerifyProblem:
    """The problem a break is, carrying it."""
    return VerifyProblem(b.path, b.line, b.what, b)
