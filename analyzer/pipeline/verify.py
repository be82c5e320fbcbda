"""Pipeline, verify: the scan replayed on a pruned tree, then the checks of the verify stage
(alone, or against the baseline the manifest recorded of the original)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.config.options import ScanOptions
from analyzer.errors import RootError
from analyzer.pipeline.scan import RunSettings, ScanResult, scan
from analyzer.verify.checks import (
    _LINE,
    _UNKNOWN_TARGET,
    CLI_SOURCE,
    check,
    check_against_manifest,
)
from analyzer.verify.problem import VerifyProblem


@dataclass
class Verification:
    result: ScanResult
    problems: list[VerifyProblem]

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_scan(path: Path, options: ScanOptions, settings: RunSettings | None = None, *,
                before: dict[str, Any] | None = None) -> Verification:
    """Re-scan ``path`` and check it. A ``--keep-target`` naming no target is a problem of
    the tree (the pruning removed it), not a usage error: the scan is retried without it.
    Other scan errors (``ScanError``, ``RootError`` for roots, ``ProfileError``) propagate.
    Against a manifest every Python file is parsed: the imports of every remaining file are
    checked, also of one that nothing remaining names any more."""
    missing: list[str] = []
    if before is not None:
        options = options.replace(parse_all=True)
    kept = list(options.keep_targets)
    result: ScanResult | None = None
    while result is None:
        try:
            result = scan(path, options.replace(keep_targets=tuple(kept)),
                          settings or RunSettings(), report=False)
        except RootError as exc:
            m = _UNKNOWN_TARGET.search(str(exc))
            if m is None or m.group(1) not in kept:
                raise
            kept.remove(m.group(1))
            missing.append(m.group(1))
    if before is None:
        problems = check(result)
    else:  # only what the pruning broke: baseline problems were there already, and only
        #    files the manifest edited can have stopped compiling
        edited = {d["path"] for d in before.get("deletions", []) if d["kind"] != "delete_file"}
        # matched without line numbers: the pruning edits files, and lines move
        baseline = {_LINE.sub(r"\1: ", s) for s in before.get("verify_baseline", [])}
        problems = [p for p in check(result, edited, shared=False)
                    if _LINE.sub(r"\1: ", str(p)) not in baseline]
        problems.extend(check_against_manifest(result, before, path,
                                               (settings or RunSettings()).jobs))
    problems.extend(VerifyProblem(CLI_SOURCE, 0, f"kept target {name!r} (--keep-target) is "
                                  "defined by no CMake file") for name in missing)
    return Verification(result, sorted(set(problems)))


def manifest_of(result: ScanResult) -> dict[str, Any]:
    """The manifest of a scan with its verify baseline (what ``depgraph scan`` writes)."""
    from analyzer.outputs.manifest import manifest_dict
    from analyzer.verify.baseline import verify_baseline

    return manifest_dict(result, verify_baseline(result))
