"""Output stage: the JSON deletion manifest that drives ``depgraph apply``.

Schema (``schema_version`` 1): the scanned root, the roots used, totals, and ``deletions``:
each with ``kind`` (``delete_file`` | ``delete_range`` | ``remove_import_names``), ``path``
(relative, POSIX), ``sha256`` of the file as scanned, 1-based inclusive
``start_line``/``end_line`` for ranges, ``lines`` removed, ``reason``, and ``symbol`` /
``names`` where they apply. Formatting only: every value comes from the ``ScanResult``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analyzer import __version__
from analyzer.errors import GateError
from analyzer.graph.native import is_tu
from analyzer.model import Deletion, goes_with, is_behaviour_decision
from analyzer.plan.native import leaving_tus

if TYPE_CHECKING:
    from analyzer.result import Blocker, ScanResult


SCHEMA_VERSION = 1


def manifest_dict(result: ScanResult, baseline: dict[str, Any] | None = None, *,
                  why: bool = True) -> dict[str, Any]:
    """The manifest of a scan; ``baseline``: what verify compares a pruned tree with (the
    ``verify_baseline*`` keys, computed by ``analyzer.verify.baseline`` before formatting).
    ``why=False``: without the ``why`` section (optional in the schema; only ``depgraph why
    --manifest`` reads it): the manifest the gate applies and verifies, made before the
    roots' reasons are known, needs none."""
    baseline = baseline or {}
    deletions = [deletion_entry(d) for d in result.plan.deletions]
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "depgraph", "version": __version__},
        "root": str(result.root),
        # the tree the manifest is for: `depgraph apply` refuses another (tree_identity)
        "tree": tree_identity(result),
        "roots": result.root_names,
        "default_roots": [r for r in result.default_roots],
        "keep_targets": result.keep_targets,
        # the options of the scan, as `verify --before` replays them
        "options": result.options.to_json(),
        "totals": totals(result),
        "build": build_summary(result),
        "profile": profile_summary(result),
        # deletions the soundness check cancelled (remaining code still needs them)
        "kept_for_soundness": kept_for_soundness(result),
        # modules only a test that stays reaches (a model a test of live code imports)
        "kept_by_tests": [{"path": p, "test": t} for p, t in result.kept_by_tests.items()],
        # problems the tree has before pruning: `verify --before` reports only new ones;
        # the original of every Python file the plan edits and of the build, as verify
        # compares them
        "verify_baseline": baseline.get("verify_baseline", []),
        "verify_baseline_python": baseline.get("verify_baseline_python", {}),
        "verify_baseline_native": baseline.get("verify_baseline_native"),
        # attribute name -> the classes of the original defining it (methods, attributes)
        "verify_baseline_members": baseline.get("verify_baseline_members", {}),
        # class -> its direct subclasses, for classes live code enumerates (__subclasses__)
        "verify_baseline_subclasses": baseline.get("verify_baseline_subclasses", {}),
        # [kind, path, what] of each break the original tree already has (an optional
        # package's import): verify reports only new ones
        "verify_baseline_breaks": baseline.get("verify_baseline_breaks", []),
        # the extension modules the original's build makes
        "verify_baseline_extensions": baseline.get("verify_baseline_extensions", []),
        # [importer, module as written, the file beside it]: bare imports of scripts
        "verify_baseline_siblings": baseline.get("verify_baseline_siblings", []),
        "verify_baseline_unparsed": baseline.get("verify_baseline_unparsed", []),
    }
    if why:
        # what `depgraph why --manifest` answers from (analyzer/outputs/why_index.py): the
        # live tree with each root's reason, and the module of each Python file deleted whole
        out["why"] = why_section(result)
    out["deletions"] = deletions
    return out


def why_section(result: ScanResult) -> dict[str, Any]:
    from analyzer.outputs.why_index import live_tree

    deleted = {result.index.by_path[d.path]: d.path for d in result.plan.deletions
               if d.kind == "delete_file" and d.path in result.index.by_path}
    return {**live_tree(result), "deleted_modules": dict(sorted(deleted.items()))}


def tree_identity(result: ScanResult) -> dict[str, Any]:
    """What makes the scanned tree this tree, for ``depgraph apply`` to refuse a manifest
    applied elsewhere: its top-level Python packages (each with the path of its
    ``__init__.py``), the profile, and a fingerprint of every scanned file's path and sha256
    (``files``: how many). A copy of the tree (same relative paths, same contents) is the same
    tree wherever it lies; the files the manifest edits also carry their own sha256."""
    import hashlib

    packages = sorted((m.name, m.path) for m in result.index.modules.values()
                      if m.is_package and "." not in m.name)
    digest = hashlib.sha256()
    for path, info in sorted(result.files.items()):
        digest.update(f"{path}\0{info.sha256}\n".encode())
    profile = result.profile.profile
    return {"packages": [{"name": n, "init": p} for n, p in packages],
            "profile": profile.name if profile is not None else None,
            "files": len(result.files), "fingerprint": digest.hexdigest()}


def shared_prefix(chains: list[list[str]]) -> list[list[str]]:
    """Each chain with the steps it shares with the chain before it replaced by one line
    (``(as above, N steps)``): the common path from the root is shown once."""
    out: list[list[str]] = []
    prev: list[str] = []
    for chain in chains:
        n = 0
        while n < min(len(chain), len(prev)) - 1 and chain[n] == prev[n]:
            n += 1
        out.append(([f"(as above, {n} step{'s' if n != 1 else ''})"] if n > 1 else chain[:n])
                   + chain[n:])
        prev = chain
    return out


def blocker_entry(b: Blocker) -> dict[str, Any]:
    """``group``: ``default`` (a live default selects a dropped key: ``behind`` is the key;
    the edit is changing it), ``code`` (``behind``: the key it is live only through, if
    any) or ``test`` (a test importing the feature)."""
    return {"path": b.file, "line": b.line, "kind": b.kind, "from": _short(b.src),
            "enters": _short(b.dst), "blocks": [_short(n) for n in b.blocks],
            "frees": len(b.frees), "edit": b.edit, "group": b.group, "behind": b.behind}


def _short(node: str) -> str:
    return node.split(":", 1)[1] if ":" in node else node


def kept_for_soundness(result: ScanResult) -> list[dict[str, Any]]:
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for c in result.conflicts:
        d = c.deletion
        kept = (f"{d.category} {d.path}:{d.start_line}" if d is not None
                else f"node {(c.root or '')[3:] or c.root}")
        out.setdefault((c.path, c.line, c.what, kept), {
            "path": c.path, "line": c.line, "needs": c.what, "kept": kept})
    return list(out.values())


def deletion_entry(d: Deletion) -> dict[str, Any]:
    """One deletion as the manifest (and SARIF's properties) spell it."""
    entry: dict[str, Any] = {"kind": d.kind, "path": d.path, "sha256": d.sha256}
    if d.start_line is not None:
        entry["start_line"] = d.start_line
        entry["end_line"] = d.end_line
    entry["lines"] = d.lines
    if d.symbol:
        entry["symbol"] = d.symbol
    if d.names:
        entry["names"] = list(d.names)
    if d.rewrite:
        entry["rewrite"] = d.rewrite
        entry["statement"] = list(d.statement) if d.statement else None
        entry["keep"] = list(d.keep) if d.keep else None
    entry["category"] = d.category
    entry["feature"] = d.feature
    entry["features"] = list(d.features)
    entry["with_features"] = list(d.with_features)
    if d.after:
        entry["after"] = list(d.after)
    entry["reason"] = d.reason
    return entry


def feature_part(result: ScanResult) -> tuple[list[Deletion], list[Deletion]]:
    """(the dropped features' share, other dead code): the share goes once every dropped
    feature is applied (``goes_with``): the features' own deletions, their knock-ons and the
    dead code that goes with them -- what ``--scope features`` plans; the rest is code the
    roots do not reach for other reasons (other models, unused helpers)."""
    dropped = frozenset(result.profile.drops)
    share: list[Deletion] = []
    other: list[Deletion] = []
    for d in result.plan.deletions:
        (share if dropped and goes_with(d.features, d.with_features, dropped, d.after)
         else other).append(d)
    return share, other


def taken_along(result: ScanResult) -> list[Deletion]:
    """Deletions of the dropped features' share shown under no dropped feature: dead code
    that goes with them (a feature's deletion takes it along)."""
    names = {f.name for f in result.features}
    return [d for d in feature_part(result)[0] if d.feature not in names]


def totals(result: ScanResult) -> dict[str, int]:
    py = [f for f in result.files.values() if f.language == "python"]
    dead_files = [d for d in result.plan.deletions if d.kind == "delete_file"]
    share, other = feature_part(result)
    return {
        "python_files": len(py),
        "python_lines": sum(f.lines for f in py),
        "modules": len(result.index.modules),
        "modules_in_scope": len(result.in_scope),
        "live_modules": sum(1 for n, a in result.graph.nodes(data=True)
                            if a.get("kind") == "module" and result.liveness.is_live(n)),
        "files_removable": len(dead_files),
        "lines_removable": result.plan.removed_lines(),
        "deletions": len(result.plan.deletions),
        # the same, apart: the dropped features' share (what --scope features plans) and
        # other dead code; each pair adds up to the total above
        "lines_features": sum(d.lines for d in share),
        "files_features": sum(1 for d in share if d.kind == "delete_file"),
        "deletions_features": len(share),
        "lines_other": sum(d.lines for d in other),
        "files_other": sum(1 for d in other if d.kind == "delete_file"),
        "deletions_other": len(other),
        "parse_problems": len(result.problems),
        "native_files": sum(1 for f in result.files.values() if f.language == "cuda"),
        "cmake_files": sum(1 for f in result.files.values() if f.language == "cmake"),
        "targets": len(result.native.project.targets),
        "translation_units": len({s.path for t in result.native.project.targets
                                  for s in t.sources if s.path and is_tu(s.path)}),
        "dead_targets": len(result.native_summary.dead_targets),
        "translation_units_removed": result.native_summary.tus_removed,
        "fetches_no_longer_needed": len(result.native_summary.dead_fetches),
    }


def _leaving(result: ScanResult, name: str) -> list[tuple[int, list[str]]]:
    """The TUs that leave the build with a feature (``plan.native.leaving_tus``)."""
    targets = {i.node.split(":", 1)[1] for f in result.features if f.name == name
               for i in f.items if i.kind == "target"}
    return leaving_tus((d for d in result.plan.deletions if name in d.features),
                       result.native_summary.dead_targets, targets,
                       result.native.compiled_by)


def feature_tus(result: ScanResult, name: str) -> int:
    """A feature's translation units, as its row counts them: the TU files of its share and
    the fetched TUs of its targets that leave the build."""
    return sum(n for n, _targets in _leaving(result, name))


def feature_tu_archs(result: ScanResult, name: str) -> tuple[int, int]:
    """(TU x architecture pairs, TUs whose architectures the tree does not state) that leave
    the build with a feature: each TU of :func:`feature_tus` times the CUDA architectures of
    every target compiling it (``CMakeTarget.archs``)."""
    archs = {t.name: t.archs for t in result.native.project.targets}
    known = unknown = 0
    for n, targets in _leaving(result, name):
        lists = [archs.get(t) for t in targets]
        if not lists or any(a is None for a in lists):
            unknown += n
        else:
            known += n * sum(len(a or ()) for a in lists)
    return known, unknown


def profile_summary(result: ScanResult) -> dict[str, Any] | None:
    use = result.profile
    if use.profile is None:
        return None
    return {
        "name": use.profile.name,
        "description": use.profile.description,
        "source": use.profile.source,
        "dropped": list(use.drops),
        "stale": use.stale,
        # dropped keys live code still produces (key -> the producing line): kept
        "blocked_keys": dict(use.blocked_keys),
        "features": [{
            "name": f.name,
            "description": f.description,
            "files_removable": f.files_removable,
            "lines_removable": f.lines_removable,
            # its CUDA translation units: TU files of its share, fetched TUs of its dead targets
            "translation_units_removable": feature_tus(result, f.name),
            # each times the CUDA architectures its target states; TUs whose list is unknown
            **dict(zip(("tu_arch_pairs_removable", "tus_arch_unknown"),
                       feature_tu_archs(result, f.name), strict=True)),
            "items_removable": len(f.removable),
            "blocked": [{"item": i.label, "kind": i.kind, "status": "blocked",
                         "chain": i.chain} for i in f.blocked],
            # where live code enters the feature, what each entry keeps, the edit that frees
            "blockers": [blocker_entry(b) for b in result.blockers.get(f.name, [])],
            # the profile's anchors of the feature this tree has: matched / total, stale ones
            "anchors": anchors_entry(result, f.name),
            # the further drop that frees the most of it, and what its share gains
            **({"what_frees_it": result.freeing[f.name].to_json()}
               if f.name in result.freeing else {}),
        } for f in result.features],
        "kept": [{"path": k.path, "line": k.line, "what": k.what, "status": "kept",
                  "reason": k.reason} for k in result.plan.kept],
        # deletions that change what live code selects (a person should read them)
        "behaviour_decisions": [{"path": d.path, "line": d.start_line or 0, "feature": d.feature,
                                 "reason": d.reason}
                                for d in result.plan.deletions if is_behaviour_decision(d)],
    }


def anchors_entry(result: ScanResult, feature: str) -> dict[str, Any]:
    a = next((x for x in result.anchors if x.feature == feature), None)
    if a is None:
        return {"matched": 0, "total": 0, "out_of_date": False, "stale": []}
    return {"matched": a.matched, "total": a.total, "out_of_date": a.out_of_date,
            "stale": [str(s) for s in a.stale]}


def build_summary(result: ScanResult) -> dict[str, Any]:
    s = result.native_summary
    return {
        "dead_targets": [{"name": t.name, "file": t.file, "translation_units": t.tus_in_repo,
                          "fetched_translation_units": t.tus_fetched,
                          "fetches": list(t.fetches)} for t in s.dead_targets],
        "fetches_no_longer_needed": s.dead_fetches,
        "dead_ops": s.dead_ops,
        "translation_units_removed": s.tus_removed,
    }


def verified_manifest(result: ScanResult) -> dict[str, Any]:
    """The manifest of a result whose plan the gate verified on its applied copy
    (``analyzer.pipeline.gate``), with the baseline it was verified with: the one way to a
    manifest that is written. ``GateError`` for any other result."""
    if result.verified is None:
        raise GateError("no manifest of a plan the gate did not verify (a scan made "
                        "without its gate)")
    return manifest_dict(result, result.verified)


def write_manifest(result: ScanResult, path: Path) -> None:
    """Write :func:`verified_manifest` to ``path``."""
    path.write_text(json.dumps(verified_manifest(result), indent=2) + "\n", encoding="utf-8")
