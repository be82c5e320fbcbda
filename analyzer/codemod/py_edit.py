"""Codemod stage: one manifest entry of a Python file as the edits see it (lines 1-based,
as the scan found them). ``apply.py`` makes them, ``python_slices`` finds the regions they
need, ``python_edits`` carries them out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from analyzer.model import DeletionKind, FoldRewrite

Rewrite: TypeAlias = FoldRewrite | Literal[""]  # "" for every kind but fold_branch


@dataclass(frozen=True)
class PyEdit:
    kind: DeletionKind  # any but delete_file
    start: int
    end: int
    names: tuple[str, ...] = ()
    rewrite: Rewrite = ""
    statement: tuple[int, int] | None = None
    keep: tuple[int, int] | None = None
    reason: str = ""
