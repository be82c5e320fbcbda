"""Command line: a thin click group mapping options onto ``analyzer.scan`` and the writers.

Exit codes (documented in the README):
  0  success
  1  --fail-on-removable and the plan has deletions
  2  usage error (bad option; click's own code)
  3  bad input: missing path, not a directory, nothing to analyze
  4  unknown or ambiguous root
  5  cannot write the output directory
  6  profile error (bad key or value, unknown feature); with --strict, stale entries too
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from analyzer import __version__
from analyzer.analysis.roots import RootError
from analyzer.discover import DiscoveryError
from analyzer.extract.treesitter import data_dir
from analyzer.profile import ProfileError
from analyzer.scan import ScanError, ScanResult, run_scan

EXIT_INPUT = 3
EXIT_ROOT = 4
EXIT_REMOVABLE = 1
EXIT_OUTPUT = 5
EXIT_PROFILE = 6

DEMO_REPO = "mini_sglang"
DEMO_ROOTS = ("deepseek_v2",)


def _write_json(result: ScanResult, path: Path) -> None:
    from analyzer.manifest import write_manifest

    write_manifest(result, path)


def _write_html(result: ScanResult, path: Path) -> None:
    from analyzer.reporters.html import write_html

    write_html(result, path)


def _write_md(result: ScanResult, path: Path) -> None:
    from analyzer.reporters.markdown import render_feature_markdown, render_markdown

    path.write_text(render_markdown(result), encoding="utf-8")
    for feature in result.profile.drops:  # one change description per feature (a PR each)
        path.with_name(f"{path.stem}-{feature}.md").write_text(
            render_feature_markdown(result, feature), encoding="utf-8")


def _write_sarif(result: ScanResult, path: Path) -> None:
    import json

    from analyzer.reporters.sarif import render_sarif

    path.write_text(json.dumps(render_sarif(result), indent=2) + "\n", encoding="utf-8")


# format -> (file name, writer)
WRITERS = {"json": ("manifest.json", _write_json), "html": ("report.html", _write_html),
           "md": ("summary.md", _write_md), "sarif": ("depgraph.sarif", _write_sarif)}


def _fail(message: str, code: int) -> None:
    click.echo(f"depgraph: error: {message}", err=True)
    sys.exit(code)


def _scan_or_exit(path: Path, roots: tuple[str, ...], default_roots: bool,
                  excludes: tuple[str, ...], keep_targets: tuple[str, ...] = (),
                  profile: str | None = None, drop: tuple[str, ...] = (),
                  keep: tuple[str, ...] = (), strict: bool = False,
                  no_profile: bool = False, perf: dict | None = None) -> ScanResult:
    try:
        result = run_scan(path, list(roots), use_default_roots=default_roots,
                          excludes=excludes, keep_targets=keep_targets, profile=profile,
                          drop=drop, keep=keep, use_profile=not no_profile, **(perf or {}))
    except (DiscoveryError, ScanError) as exc:
        _fail(str(exc), EXIT_INPUT)
    except RootError as exc:
        _fail(str(exc), EXIT_ROOT)
    except ProfileError as exc:
        _fail(str(exc), EXIT_PROFILE)
    if strict and result.profile.stale:
        _fail(f"stale profile entry: {result.profile.stale[0]}"
              + (f" (and {len(result.profile.stale) - 1} more)"
                 if len(result.profile.stale) > 1 else ""), EXIT_PROFILE)
    return result


def perf_options(func):
    """--jobs/--cache-dir/--no-cache."""
    func = click.option("--no-cache", is_flag=True, help="Neither read nor write the facts "
                        "cache.")(func)
    func = click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
                        help="Facts cache folder (default: $XDG_CACHE_HOME/depgraph or "
                             "~/.cache/depgraph).")(func)
    return click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                        help="Worker processes for extraction (default: all cores).")(func)


def _perf(jobs: int | None, cache_dir: Path | None, no_cache: bool, quiet: bool) -> dict:
    import os

    from analyzer.extract.cache import default_cache_dir
    from analyzer.extract.runner import stderr_progress

    return {"jobs": jobs or os.cpu_count() or 1,
            "cache_dir": None if no_cache else (cache_dir or default_cache_dir()),
            "progress": stderr_progress if not quiet and sys.stderr.isatty() else None}


def profile_options(func):
    """--profile/--drop/--keep/--strict, shared by scan and why."""
    func = click.option("--no-profile", is_flag=True,
                        help="Use no profile, not even a detected one.")(func)
    func = click.option("--strict", is_flag=True,
                        help="Stale profile entries (matching nothing) are errors.")(func)
    func = click.option("--keep", "keep", multiple=True,
                        help="Feature to keep although the profile drops it. Repeatable.")(func)
    func = click.option("--drop", "drop", multiple=True,
                        help="Feature to drop (on top of the profile's defaults). "
                             "Repeatable.")(func)
    return click.option("--profile", "profile", default=None,
                        help="Profile file or built-in name (default: depgraph.toml, "
                             "[tool.depgraph] in pyproject.toml, or a built-in one that "
                             "detects the tree).")(func)


@click.group()
@click.version_option(__version__, prog_name="depgraph")
def main() -> None:
    """depgraph: dependency graph and dead-code plan for ML monorepos."""


@main.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--roots", "-r", "roots", multiple=True,
              help="Root to keep live: short module name, dotted module, file path or "
                   "module:Symbol. Repeatable.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=Path("depgraph-out"),
              show_default=True, help="Folder for manifest.json and report.html.")
@click.option("--no-default-roots", is_flag=True,
              help="Do not add the entry points the repository declares (pyproject scripts, "
                   "__main__ modules) as roots.")
@click.option("--keep-target", "keep_targets", multiple=True,
              help="CMake target to keep whole (a root of the build). Globs allowed. "
                   "Repeatable.")
@click.option("--exclude", "excludes", multiple=True,
              help="Extra gitignore-style pattern to skip. Repeatable.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.option("--format", "formats", multiple=True, type=click.Choice(sorted(WRITERS)),
              help="Output to write (repeatable; default: json and html).")
@click.option("--fail-on-removable", is_flag=True,
              help="Exit 1 when the plan has any deletion (for CI and pre-commit).")
@profile_options
@perf_options
def scan(path: Path | None, roots: tuple[str, ...], out_dir: Path, no_default_roots: bool,
         keep_targets: tuple[str, ...], excludes: tuple[str, ...], quiet: bool,
         formats: tuple[str, ...], fail_on_removable: bool,
         profile: str | None, drop: tuple[str, ...], keep: tuple[str, ...],
         strict: bool, no_profile: bool, jobs: int | None, cache_dir: Path | None,
         no_cache: bool) -> None:
    """Scan PATH (default: the bundled sample repo) and write the manifest and the report."""
    from analyzer.manifest import totals

    if path is None:
        path = data_dir("sample_repos") / DEMO_REPO
        roots = roots or DEMO_ROOTS
    result = _scan_or_exit(path, roots, not no_default_roots, excludes, keep_targets,
                           profile, drop, keep, strict, no_profile,
                           _perf(jobs, cache_dir, no_cache, quiet))
    written: list[Path] = []
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for fmt in formats or ("json", "html"):
            name, write = WRITERS[fmt]
            write(result, out_dir / name)
            written.append(out_dir / name)
    except OSError as exc:
        _fail(f"cannot write to {out_dir}: {exc.strerror or exc}", EXIT_OUTPUT)
    if quiet:
        if fail_on_removable and result.plan.deletions:
            sys.exit(EXIT_REMOVABLE)
        return
    t = totals(result)
    for p in result.problems[:20]:
        click.echo(f"warning: {p.path}:{p.line}: {p.kind}: {p.message}", err=True)
    if len(result.problems) > 20:
        click.echo(f"warning: ... {len(result.problems) - 20} more problems in the report",
                   err=True)
    for s in result.profile.stale:
        click.echo(f"warning: stale: {s}", err=True)
    if result.profile.profile is not None:
        click.echo(f"profile {result.profile.profile.name} ({result.profile.profile.source}); "
                   f"dropped: {', '.join(result.profile.drops) or 'nothing'}")
    for f in result.features:
        click.echo(f"  {f.name}: {f.files_removable} files, {f.lines_removable} lines "
                   f"removable; {len(f.blocked)} blocked")
    elapsed = sum(result.timings.values())
    click.echo(
        f"{t['python_files']} Python files, {t['modules']} modules, {t['live_modules']} live; "
        f"removable: {t['files_removable']} files, {t['lines_removable']} lines in "
        f"{t['deletions']} deletions ({elapsed:.2f}s)")
    click.echo("wrote " + " and ".join(str(p) for p in written))
    if fail_on_removable and result.plan.deletions:
        sys.exit(EXIT_REMOVABLE)


@main.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.argument("target")
@click.option("--roots", "-r", "roots", multiple=True, help="Roots, as for scan.")
@click.option("--keep-target", "keep_targets", multiple=True, help="As for scan.")
@click.option("--no-default-roots", is_flag=True)
@profile_options
@perf_options
def why(path: Path, target: str, roots: tuple[str, ...], keep_targets: tuple[str, ...],
        no_default_roots: bool, profile: str | None, drop: tuple[str, ...],
        keep: tuple[str, ...], strict: bool, no_profile: bool, jobs: int | None,
        cache_dir: Path | None, no_cache: bool) -> None:
    """Print the shortest live chain from a root to TARGET, or why it is dead.

    TARGET: a module, module:Symbol, Python or native file path, CMake target name, op
    (op:ns::name) or any node id."""
    from analyzer.analysis.features import feature_of_node
    from analyzer.analysis.roots import resolve_roots
    from analyzer.analysis.why import explain, find_node

    result = _scan_or_exit(path, roots, not no_default_roots, (), keep_targets, profile, drop,
                           keep, strict, no_profile, _perf(jobs, cache_dir, no_cache, True))
    node = find_node(result.graph, target, result.root)
    if node is None:
        try:
            node = resolve_roots([target], result.graph, result.root)[0]
        except RootError as exc:
            _fail(str(exc).replace("root", "target", 1), EXIT_ROOT)
    feature = feature_of_node(result.graph.nodes[node], result.profile.features,
                              result.profile.kept_features)
    click.echo(explain(result.graph, result.liveness, node, feature))


def _register_commands() -> None:
    from analyzer.codemod.command import apply_command
    from analyzer.graph_command import graph_command
    from analyzer.verify_command import verify_command

    main.add_command(apply_command, "apply")
    main.add_command(verify_command, "verify")
    main.add_command(graph_command, "graph")


_register_commands()
