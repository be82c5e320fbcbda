"""Verify stage, at scan time: what verify will compare a pruned tree with, recorded from the
original (problems it already has, its edited Python files, its build), for the manifest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from analyzer.plan.check.view import sibling_imports
from analyzer.verify.checks import check
from analyzer.verify.members import enumerated_subclasses, member_baseline
from analyzer.verify.native import baseline_of
from analyzer.verify.python import python_baseline

if TYPE_CHECKING:
    from analyzer.result import ScanResult


def verify_baseline(result: ScanResult, jobs: int = 1) -> dict[str, Any]:
    """The baseline; the per-file Python facts are stored, computed in ``jobs`` worker
    processes."""
    folded: dict[str, list[tuple[int, int]]] = {}
    for d in result.plan.deletions:
        if d.kind == "fold_branch" and d.start_line and d.end_line:
            folded.setdefault(d.path, []).append((d.start_line, d.end_line))
    edited = {d.path for d in result.plan.deletions if d.kind != "delete_file"}
    return {
        "verify_baseline": [str(p) for p in check(result, compile_paths=set())],
        "verify_baseline_python": python_baseline(result.sources, edited, folded,
                                                  result.lint_before, jobs),
        "verify_baseline_native": baseline_of(result),
        "verify_baseline_members": member_baseline(result),
        "verify_baseline_subclasses": enumerated_subclasses(result),
        "verify_baseline_extensions": sorted(result.index.extensions),
        # [importer, module as written, the file beside it]: bare imports of scripts
        "verify_baseline_siblings": [[i, w, a] for (i, w), a in sorted(
            sibling_imports(result.index).items())],
        "verify_baseline_breaks": [list(k) for k, n in sorted(result.breaks_before.items())
                                   for _ in range(n)],
        # Python files the scan did not parse (no import of a parsed file can name them: they
        # are counted, their facts empty): their own breaks are not in verify_baseline_breaks
        "verify_baseline_unparsed": sorted(
            (result.counted - result.reparsed)
            | {m.path for m in result.index.modules.values() if not m.facts.imports}),
    }
