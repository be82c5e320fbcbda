"""Pipeline, the gate: the last step before a manifest exists.

The plan the soundness rounds settled on is written as the manifest it would be, applied to
a copy of the tree exactly as ``depgraph apply --write`` applies it (``analyzer.codemod``),
and ``depgraph verify --before`` runs on the copy with that manifest
(``analyzer.pipeline.verify``: the same code, the same options replayed from the manifest).
Whatever verify reports is blamed on the deletions that caused it (the plan's own blame,
``analyzer.plan.check.conflicts.blame_found``; the native half's ``native_blame``); the rounds
then continue from their settled state with that kept -- the knock-ons are computed again
under it -- and the gate runs again on the new plan. A plan verify passes is the answer: a
manifest its own verify would fail is never made (:func:`gated_baseline` is the one way to
the baseline a written manifest carries).

The copy: every file of the tree is linked into a temporary folder (hard links where the
filesystem allows, else copied), except the files the plan edits or deletes, which are
copied: the apply replaces files atomically and never writes into one, so the original is
never touched either way. Version-control folders, virtual environments and caches the
discovery never reads are left out.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analyzer.pipeline.gate_blame import Gate
from analyzer.pipeline.gate_verdicts import (
    analysed_modules,
    copy_verdict_key,
    keep_verdict,
    kept_verdict,
    verdict_key,
)

if TYPE_CHECKING:
    from analyzer.config.types import Profile
    from analyzer.pipeline.analyze import RunSettings
    from analyzer.result import ScanResult
    from analyzer.verify.problem import VerifyProblem

# folders no scan reads (the discovery's default excludes that hold no sources): not copied
_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".venv", "venv",
                           "node_modules", ".tox", ".nox", ".mypy_cache", ".pytest_cache",
                           ".ruff_cache", "depgraph-out"})
# the one file of .git a scan reads
_GIT_EXCLUDE = (".git", "info", "exclude")


def make_gate(settings: RunSettings) -> Gate:
    """The gate of a scan run with ``settings``: the manifest of a result applied to a copy
    of its tree and verified there (the copy's scan shares the facts cache) -- or the
    verdict kept on the same manifest over the tree keyed alike (``tree``, the result's
    analysed tree: ``analyzer.pipeline.gate_verdicts``)."""
    from analyzer.verify.baseline import verify_baseline

    quiet = dataclasses.replace(settings, progress=None, stage=None)

    def gate(result: ScanResult, tree: str | None
             ) -> tuple[list[VerifyProblem], dict[str, Any]]:
        from analyzer.outputs.manifest import manifest_dict

        baseline = verify_baseline(result, settings.jobs)  # (in the scan's session)
        # (without the why section: the copy's apply and verify read none, and the live tree
        # it holds is the outputs', made once the roots' reasons are known)
        manifest = manifest_dict(result, baseline, why=False)
        # the verdict on the same manifest over a tree verify reads alike, if kept
        key = verdict_key(tree, manifest) if tree is not None else None
        problems = kept_verdict(key)
        if problems is None:
            # (the copy is a new folder each time: verify keeps its per-tree entries under a
            # name of the manifest's root, pipeline.verify.pruned_slot, so the next gate of
            # this tree, or verify of the user's pruned tree, reuses its edges and lints)
            problems = verify_applied(result, baseline, quiet, manifest)
            keep_verdict(key, problems)
        return problems, baseline

    return gate


def verify_applied(result: ScanResult, baseline: dict[str, Any], settings: RunSettings,
                   manifest: dict[str, Any] | None = None) -> list[VerifyProblem]:
    """What ``depgraph verify --before`` reports on a copy of ``result``'s tree once its
    manifest (with ``baseline``; ``manifest``: made already) is applied with ``--write``.
    With several jobs the copy is applied and scanned in a process of its own
    (``analyzer.pipeline.gate_process``): the copy's facts, graph and plan never join the
    scan's in this process, nor the memory of the workers forked from it later."""
    from analyzer.outputs.manifest import manifest_dict

    if manifest is None:  # (without the why section: the copy's apply and verify read none)
        manifest = manifest_dict(result, baseline, why=False)
    if not manifest["deletions"]:
        return []
    copy = CopyToVerify(result.root, manifest, frozenset(d.path for d in result.plan.deletions),
                        result.profile.profile, analysed_modules(result.index, result.files))
    if settings.jobs > 1:
        from analyzer.pipeline.gate_process import verify_in_process
        return verify_in_process(copy, settings)
    return copy.problems(settings)


@dataclass(frozen=True)
class CopyToVerify:
    """A tree's manifest, to be applied to a copy of the tree and verified there: what the
    gate hands the process that does it (a value: no file bytes, no graph)."""

    root: Path
    manifest: dict[str, Any]
    touched: frozenset[str]  # the files the manifest edits or deletes (copied, not linked)
    profile: Profile | None  # the profile the scan used
    # path -> (sha256, analysis digest) of the tree's modules (the copy's key reads them)
    analysed: dict[str, tuple[str, str]] = field(default_factory=dict)

    def problems(self, settings: RunSettings) -> list[VerifyProblem]:
        """What ``depgraph verify --before`` reports on the applied copy."""
        from analyzer.codemod.apply import run_apply
        from analyzer.config.options import ScanOptions
        from analyzer.core.session import session
        from analyzer.errors import ApplyError
        from analyzer.pipeline.inputs import ChosenProfile
        from analyzer.pipeline.verify import pruned_settings, verify_scan
        from analyzer.util.gc_pause import gc_paused
        from analyzer.verify.problem import VerifyProblem

        manifest = self.manifest
        if settings.slot is None and isinstance(manifest.get("root"), str):
            # (the slot verify keeps a pruned tree's entries under: named here, so that the
            # copy's key reads the digests verify keeps)
            settings = pruned_settings(settings, manifest["root"])
        # (one session for the copy's key and its verify: the facts read once; the collector
        # paused for both, as for the scan: the key parses the files no store holds)
        with tempfile.TemporaryDirectory(prefix="depgraph-gate-") as work, \
                session(settings.cache_dir), gc_paused():
            copy = Path(work) / "tree"
            mirror(self.root, copy, set(self.touched))
            written = Path(work) / "manifest.json"
            written.write_text(json.dumps(manifest), encoding="utf-8")
            try:
                run_apply(written, copy, write=True, patch_out=Path(work) / "undo.patch",
                          cache_dir=settings.cache_dir)
            except ApplyError as exc:  # (the plan's own edits: never expected)
                return [VerifyProblem("<manifest>", 0, f"apply refuses the plan: {exc}")]
            options = ScanOptions.from_json(manifest["options"])  # what verify replays
            # the original's profile (a config above the original tree is not above the
            # copy); one inside the tree is read where the copy has it, so problems name it
            # as the original's verify did (relative to the tree)
            chosen = ChosenProfile(_in_copy(self.profile, self.root, copy)
                                   if options.use_profile else None)
            # the verdict on the same manifest over a copy verify reads alike, if kept
            key = copy_verdict_key(copy, manifest, options, chosen, self.analysed,
                                   cache_dir=settings.cache_dir, slot=settings.slot,
                                   jobs=settings.jobs)
            problems = kept_verdict(key)
            if problems is None:
                problems = verify_scan(copy, options, settings, before=manifest,
                                       chosen=chosen).problems
                keep_verdict(key, problems)
            return problems


def _in_copy(profile: Profile | None, root: Path, copy: Path) -> Profile | None:
    """``profile`` with its file in ``copy`` when it lies inside ``root``."""
    if profile is None or profile.source.startswith("builtin:"):
        return profile
    try:
        rel = Path(profile.source).resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return profile
    return dataclasses.replace(profile, source=str(copy / rel))


def mirror(root: Path, dest: Path, fresh: set[str]) -> None:
    """A copy of the tree at ``root`` in ``dest``: each file linked (copied where links
    cannot be made), the files ``fresh`` names (relative paths) copied; symbolic links
    copied as links."""
    root = root.resolve()
    dest.mkdir(parents=True)
    exclude = root.joinpath(*_GIT_EXCLUDE)
    if exclude.is_file():
        dest.joinpath(*_GIT_EXCLUDE[:-1]).mkdir(parents=True)
        shutil.copyfile(exclude, dest.joinpath(*_GIT_EXCLUDE))
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        here = dest if rel == "." else dest / rel
        dirs[:] = [d for d in dirs if d not in _SKIPPED_DIRS]
        for d in dirs:
            src = os.path.join(folder, d)
            if os.path.islink(src):
                os.symlink(os.readlink(src), here / d)
            else:
                (here / d).mkdir()
        for name in files:
            src = os.path.join(folder, name)
            target = here / name
            rel_file = name if rel == "." else f"{rel}/{name}".replace(os.sep, "/")
            if os.path.islink(src):
                os.symlink(os.readlink(src), target)
            elif rel_file in fresh:
                shutil.copyfile(src, target)
            else:
                try:
                    os.link(src, target)
                except OSError:
                    shutil.copyfile(src, target)
