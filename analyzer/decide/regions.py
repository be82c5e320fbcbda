"""Decide stage, guard folding: the value a fold hands on -- a dead region of a module (its
lines, why, and how the codemod deletes it). Made by ``analyzer.decide.guards``, kept by
``analyzer.decide.fold_reuse``, read by the graph (no edges from its lines) and the plan."""

from __future__ import annotations

from dataclasses import dataclass

from analyzer.model import FoldRewrite


@dataclass(frozen=True)
class DeadRegion:
    start_line: int  # 1-based inclusive lines no edges come from
    end_line: int
    reason: str  # e.g. "if _is_npu: folds to False (pkg.utils.is_npu = False)"
    rewrite: FoldRewrite
    statement: tuple[int, int]  # the whole if/try statement (or conditional expression)
    keep: tuple[int, int] | None  # the surviving body's lines when the rewrite keeps one
    scope: str
    spans: tuple[tuple[int, int], ...] = ()  # ifexp: byte spans (dead arm, kept arm, whole)
    partial: bool = False  # ifexp: the dead arm shares a line with live code
    needs: str = ""  # try_unwrap: the module whose absence the fold assumes
    # ifexp: what the fold stops reading (the dead arm's and the condition's chains,
    # ".attribute" names, read nowhere else on those lines): no edges, although lines stay
    reads: tuple[str, ...] = ()
