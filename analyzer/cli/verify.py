"""Command line, verify: ``depgraph verify PATH`` re-scans a pruned tree and runs the checks of
``analyzer.verify.checks`` (the verify stage); this module only maps options and prints.

Exit codes: 0 the tree holds together ("verify: OK" and totals); 8 problems (one per line,
``path:line: what``, on stdout); 3 bad input, 4 unknown root, 6 profile error, as for scan.
Registered by ``analyzer.cli.main``: ``main.add_command(verify_command, "verify")``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from analyzer.cli.options import perf_options, perf_settings

EXIT_VERIFY = 8

# (label, manifest totals key)
_COMPARED = (("Python files", "python_files"), ("Python lines", "python_lines"),
             ("native files", "native_files"), ("targets", "targets"),
             ("translation units", "translation_units"))


def scan_options(func: Any) -> Any:
    """The scan options verify and graph share (same meaning as for ``depgraph scan``)."""
    options = [
        click.option("--roots", "-r", "roots", multiple=True,
                     help="Root to keep live, as for scan. Repeatable."),
        click.option("--no-default-roots", is_flag=True,
                     help="Do not add the entry points the repository declares as roots."),
        click.option("--keep-target", "keep_targets", multiple=True,
                     help="CMake target to keep whole. Globs allowed. Repeatable."),
        click.option("--exclude", "excludes", multiple=True,
                     help="Extra gitignore-style pattern to skip. Repeatable."),
        click.option("--profile", "profile", default=None,
                     help="Profile file or built-in name, as for scan."),
        click.option("--drop", "drop", multiple=True, help="Feature to drop. Repeatable."),
        click.option("--keep", "keep", multiple=True, help="Feature to keep. Repeatable."),
        click.option("--no-profile", is_flag=True, help="Use no profile."),
    ]
    for option in reversed(options):
        func = option(func)
    return perf_options(func)


def _fail(message: str, code: int) -> None:
    click.echo(f"depgraph: error: {message}", err=True)
    sys.exit(code)


def read_manifest(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        _fail(f"cannot read manifest {path}: {exc}", 3)
    if not isinstance(data, dict) or not isinstance(data.get("totals"), dict):
        _fail(f"{path} is not a depgraph manifest (no totals)", 3)
    return data


@click.command("verify")
@click.argument("path", type=click.Path(path_type=Path))
@scan_options
@click.option("--before", "before", type=click.Path(path_type=Path), default=None,
              help="manifest.json of the scan before pruning: print totals before -> after.")
def verify_command(path: Path, roots: tuple[str, ...], no_default_roots: bool,
                   keep_targets: tuple[str, ...], excludes: tuple[str, ...],
                   profile: str | None, drop: tuple[str, ...], keep: tuple[str, ...],
                   no_profile: bool, before: Path | None, jobs: int | None,
                   cache_dir: Path | None, no_cache: bool) -> None:
    """Re-scan the pruned tree at PATH and check it still holds together: live imports,
    dynamic imports and torch ops resolve, Python compiles, CMake sources and includes exist,
    kept targets are defined. Exit 8 with one `path:line: what` per problem."""
    from analyzer.analysis.roots import RootError
    from analyzer.config.types import ProfileError
    from analyzer.discover.walk import DiscoveryError
    from analyzer.outputs.manifest import totals
    from analyzer.pipeline.scan import ScanError
    from analyzer.pipeline.verify import verify_scan
    from analyzer.verify.checks import translation_units

    manifest = read_manifest(before) if before is not None else None
    try:
        verification = verify_scan(path, list(roots), use_default_roots=not no_default_roots,
                                   excludes=excludes, keep_targets=keep_targets,
                                   profile=profile, drop=drop, keep=keep,
                                   use_profile=not no_profile, before=manifest,
                                   **perf_settings(jobs, cache_dir, no_cache, False))
    except (DiscoveryError, ScanError) as exc:
        _fail(str(exc), 3)
    except RootError as exc:
        _fail(str(exc), 4)
    except ProfileError as exc:
        _fail(str(exc), 6)
    if not verification.ok:
        for p in verification.problems:
            click.echo(str(p))
        n = len(verification.problems)
        click.echo(f"verify: {n} problem{'s' if n != 1 else ''}", err=True)
        sys.exit(EXIT_VERIFY)
    after = dict(totals(verification.result))
    after["translation_units"] = translation_units(verification.result)
    click.echo("verify: OK")
    if manifest is None:
        click.echo(f"{after['python_files']} Python files, {after['python_lines']} lines, "
                   f"{after['native_files']} native files, {after['targets']} targets, "
                   f"{after['translation_units']} translation units")
        return
    prior = manifest["totals"]
    for label, key in _COMPARED:
        was = prior.get(key)
        click.echo(f"  {label}: {was if was is not None else '?'} -> {after[key]}")
