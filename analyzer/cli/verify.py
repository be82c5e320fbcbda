"""Command line, verify: ``depgraph verify PATH`` re-scans a pruned tree and runs the checks of
the verify stage (``analyzer.pipeline.verify``); this module only maps options and prints.

With ``--before MANIFEST`` the scan is replayed with the options the manifest recorded (any
option typed on the command line overrides its value). Exit codes: 0 the tree holds together
("verify: OK" and totals); 8 problems (one per line, ``path:line: what``, on stdout); 3 bad
input, 4 unknown root, 6 profile error, as for scan. Registered by ``analyzer.cli.main``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from analyzer.cli.manifest_file import readable_manifest
from analyzer.cli.options import (
    DepgraphCommand,
    check_strict,
    close_progress,
    require_roots,
    run_settings,
    scan_options,
    verbosity_options,
    version_option,
)
from analyzer.config.options import ScanOptions
from analyzer.errors import EXIT_VERIFY, InputError

# (label, manifest totals key)
_COMPARED = (("Python files", "python_files"), ("Python lines", "python_lines"),
             ("native files", "native_files"), ("targets", "targets"),
             ("translation units", "translation_units"))


def read_manifest(path: Path) -> dict[str, Any]:
    readable_manifest(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read manifest {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("totals"), dict):
        raise InputError(f"{path} is not a depgraph manifest (no totals)")
    return data


def replayed(options: ScanOptions, given: frozenset[str], manifest: dict[str, Any] | None
             ) -> ScanOptions:
    """The manifest's recorded options, overridden by those typed on the command line."""
    if manifest is None or "options" not in manifest:
        return options
    recorded = ScanOptions.from_json(manifest["options"])
    return recorded.replace(**{name: getattr(options, name) for name in given})


@click.command("verify", cls=DepgraphCommand)
@click.argument("path", required=False, default=Path("."),
                type=click.Path(path_type=Path))
@scan_options
@click.option("--before", "before", type=click.Path(path_type=Path), default=None,
              help="manifest.json of the scan before pruning: replay its options, compare "
                   "with what it recorded of the original, print totals before -> after.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="json: one object on stdout (ok, problems with path, "
              "line, what and kind; totals before and after) instead of the lines.")
@verbosity_options("Also print the scan's own warnings: files that did not parse, stale "
                   "profile entries.")
@version_option
def verify_command(path: Path, before: Path | None, fmt: str, quiet: bool, verbose: bool,
                   options: ScanOptions,
                   given: frozenset[str], jobs: int | None, cache_dir: Path | None,
                   no_cache: bool) -> None:
    """Re-scan the pruned tree at PATH (default: the current folder) and check it still holds
    together: live imports, dynamic imports and torch ops resolve, Python compiles, CMake
    sources and includes exist, kept targets are defined; with --before, also what only a
    comparison with the original shows. Exit 8 with one `path:line: what` per problem."""
    from analyzer.codemod.apply import check_verified_tree
    from analyzer.outputs.manifest import totals
    from analyzer.pipeline.verify import verify_scan
    from analyzer.verify.checks import translation_units

    manifest = read_manifest(before) if before is not None else None
    if manifest is not None:  # the tree it was made for, first (as apply checks)
        check_verified_tree(manifest, path)
    options = replayed(options, given, manifest)
    if manifest is None:
        require_roots(options, path)
    settings = run_settings(jobs, cache_dir, no_cache, quiet)
    try:
        # (the gate verified the same tree, most likely: its rounds' settled state is kept)
        verification = verify_scan(path, options, settings, before=manifest)
    finally:
        close_progress(settings)
    check_strict(verification.result.profile.stale, options)
    if verbose:  # the scan's own warnings: parse problems, stale profile entries
        for pp in verification.result.problems:
            click.echo(f"warning: {pp.path}:{pp.line}: {pp.kind}: {pp.message}", err=True)
        for stale in verification.result.profile.stale:
            click.echo(f"warning: stale: {stale}", err=True)
    after = dict(totals(verification.result))
    after["translation_units"] = translation_units(verification.result)
    if fmt == "json":
        click.echo(json.dumps({
            "schema": "depgraph-verify/1", "ok": verification.ok,
            "problems": [{"path": p.path, "line": p.line, "what": p.what,
                          "kind": p.cause.kind if p.cause is not None else None}
                         for p in verification.problems],
            "before": {k: manifest["totals"].get(k) for _, k in _COMPARED}
            if manifest is not None else None,
            "after": {k: after[k] for _, k in _COMPARED}}, indent=2))
        if not verification.ok:
            sys.exit(EXIT_VERIFY)
        return
    if not verification.ok:
        for p in verification.problems:
            click.echo(str(p))
        n = len(verification.problems)
        click.echo(f"verify: {n} problem{'s' if n != 1 else ''}", err=True)
        sys.exit(EXIT_VERIFY)
    click.echo("verify: OK")
    if quiet:
        return
    if manifest is None:
        click.echo(f"{after['python_files']} Python files, {after['python_lines']} lines, "
                   f"{after['native_files']} native files, {after['targets']} targets, "
                   f"{after['translation_units']} translation units")
        return
    prior = manifest["totals"]
    click.echo(f"  plan: {prior.get('lines_removable', '?')} lines removed by the plan's "
               f"count, {prior.get('files_removable', '?')} files")
    planned = sum(int(d.get("lines", 0)) for d in manifest.get("deletions", [])
                  if str(d.get("path", "")).endswith((".py", ".pyi")))
    for label, key in _COMPARED:
        was = prior.get(key)
        line = f"  {label}: {was if was is not None else '?'} -> {after[key]}"
        if key == "python_lines" and isinstance(was, int):
            # the files' own count: the plan's deletions and the blank lines around them
            line += (f" (-{was - after[key]} in the files: the plan's {planned} Python lines "
                     "and the blank lines and block headers that went with them)")
        click.echo(line)
    # the pruned tree scanned with the same options: what its plan still finds (none when
    # the whole plan was applied and the pruning reached its fixpoint)
    click.echo(f"  still removable: {after['deletions']} deletions, {after['lines_removable']} "
               f"lines in {after['files_removable']} files (what a scan of this tree plans)")
