"""Verify stage: one problem a check found, printed ``path:line: what``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class VerifyProblem:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"
