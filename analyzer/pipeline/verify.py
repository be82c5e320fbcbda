"""Pipeline, verify: the scan replayed on a pruned tree, then the checks of the verify stage
(alone, or against the baseline the manifest recorded of the original)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.config.options import ScanOptions
from analyzer.core.session import session
from analyzer.errors import RootError
from analyzer.pipeline.analyze import RunSettings, ScanResult, scan_tree
from analyzer.pipeline.inputs import ChosenProfile
from analyzer.plan.check.breaks import Break
from analyzer.util.gc_pause import gc_paused
from analyzer.verify.checks import (
    _LINE,
    _UNKNOWN_TARGET,
    CLI_SOURCE,
    check,
    check_against_manifest,
)
from analyzer.verify.edited import EditedFiles
from analyzer.verify.problem import VerifyProblem, problem_of


@dataclass
class Verification:
    result: ScanResult
    problems: list[VerifyProblem]

    @property
    def ok(self) -> bool:
        return not self.problems


def pruned_slot(original: Path | str) -> str:
    """The slot of the pruned trees of the tree at ``original``: the gate's copy (a new
    folder each time) and the tree ``verify --before`` checks (wherever the user applied the
    manifest) keep their per-tree entries under it, so each finds the other's last scan (the
    edges of the modules, the check's lints). Sound for any tree: the entries inside a slot
    are keyed by content (a file's digest by its path and stat signature, inode included: a
    file of another folder is hashed again), the slot only says which last scan is looked
    at."""
    return f"{Path(original).resolve()}\0the gate's copy"


def pruned_settings(settings: RunSettings, original: str) -> RunSettings:
    """``settings`` for a scan of a pruned tree of the tree whose root is ``original`` (as
    its manifest names it): its entries kept under :func:`pruned_slot`, its modules' edges
    and lints starting from the original's last scan while that slot holds none."""
    return dataclasses.replace(settings, slot=pruned_slot(original), origin=original)


def verify_scan(path: Path, options: ScanOptions, settings: RunSettings | None = None, *,
                before: dict[str, Any] | None = None, chosen: ChosenProfile | None = None
                ) -> Verification:
    """Re-scan ``path`` and check it. A ``--keep-target`` naming no target is a problem of
    the tree (the pruning removed it), not a usage error: the scan is retried without it.
    Other scan errors (``ScanError``, ``RootError`` for roots, ``ProfileError``) propagate.
    Against a manifest every Python file is parsed: the imports of every remaining file are
    checked, also of one that nothing remaining names any more; the files the pruning edited
    are linted and compiled in worker processes while the scan runs, from the end of its
    extraction on (:class:`~analyzer.verify.edited.EditedFiles`). ``chosen``: the profile,
    chosen already (the gate's copy: the original's). Its rounds start where those of the
    same inputs settled, if kept (the user's verify of the tree the gate verified:
    :mod:`analyzer.pipeline.settled`)."""
    settings = settings or RunSettings()
    if before is not None and settings.slot is None and isinstance(before.get("root"), str):
        # a pruned tree of the manifest's tree: the slot the gate kept its copy's scan in
        settings = pruned_settings(settings, before["root"])
    # (the checks too: a full collection over the scan's objects is slow); one session for
    # the scan and the checks (the edited files' lints are kept in its store)
    with gc_paused(), session(settings.cache_dir):
        return _verify(path, options, settings, before, chosen)


def _verify(path: Path, options: ScanOptions, settings: RunSettings,
            before: dict[str, Any] | None, chosen: ChosenProfile | None) -> Verification:
    missing: list[str] = []
    if before is None:
        problems = check(result := _scan(path, options, settings, missing, chosen))
    else:  # only what the pruning broke: baseline problems were there already, and only
        #    files the manifest edited can have stopped compiling
        edited = {d["path"] for d in before.get("deletions", []) if d["kind"] != "delete_file"}
        # the edited Python files, linted and compiled beside the scan once it has extracted
        # the tree (their bytes are all that takes)
        reading = EditedFiles(path, sorted(
            p for p in edited | set(before.get("verify_baseline_python") or ())
            if p.endswith((".py", ".pyi"))), settings.jobs)
        try:
            result = _scan(path, options.replace(parse_all=True),
                           _starting_after_extraction(settings, reading), missing, chosen)
            now = reading.results()
        finally:
            reading.close()
        # matched without line numbers: the pruning edits files, and lines move
        baseline = {_LINE.sub(r"\1: ", s) for s in before.get("verify_baseline", [])}
        problems = [p for p in check(result, edited, shared=False, edited=now)
                    if _LINE.sub(r"\1: ", str(p)) not in baseline]
        problems.extend(check_against_manifest(result, before, path, settings.jobs, now))
    problems.extend(problem_of(Break("kept-target", CLI_SOURCE, 0, f"kept target {name!r} "
                                     "(--keep-target) is defined by no CMake file", "target",
                                     name)) for name in missing)
    return Verification(result, sorted(set(problems)))


# the stages a scan enters before its files are extracted
_UNTIL_EXTRACTED = frozenset({"discover", "extract"})


def _starting_after_extraction(settings: RunSettings, reading: EditedFiles) -> RunSettings:
    """``settings`` whose stage callback also starts ``reading`` at the first stage after
    extraction."""
    told = settings.stage

    def stage(name: str) -> None:
        if name not in _UNTIL_EXTRACTED:
            reading.start()
        if told is not None:
            told(name)

    return dataclasses.replace(settings, stage=stage)


def _scan(path: Path, options: ScanOptions, settings: RunSettings, missing: list[str],
          chosen: ChosenProfile | None = None) -> ScanResult:
    """The scan of ``path``; a kept target no CMake file defines is left out (and added to
    ``missing``) and the scan retried."""
    kept = list(options.keep_targets)
    while True:
        try:
            return scan_tree(path, options.replace(keep_targets=tuple(kept)), settings, chosen)
        except RootError as exc:
            m = _UNKNOWN_TARGET.search(str(exc))
            if m is None or m.group(1) not in kept:
                raise
            kept.remove(m.group(1))
            missing.append(m.group(1))


def manifest_of(result: ScanResult) -> dict[str, Any]:
    """The manifest of a scan with the verify baseline the gate verified it with (what
    ``depgraph scan`` writes)."""
    from analyzer.outputs.manifest import verified_manifest

    return verified_manifest(result)
