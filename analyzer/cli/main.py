"""Command line: a thin click group mapping options onto ``analyzer.pipeline.scan`` and the writers.

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

import contextlib
import gc
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from analyzer import __version__
from analyzer.cli.options import perf_options
from analyzer.cli.options import perf_settings as _perf
from analyzer.config.types import ProfileError
from analyzer.discover.walk import DiscoveryError
from analyzer.errors import RootError, ScanError
from analyzer.outputs.render import DEFAULT_FORMATS, FILE_NAMES, FORMATS
from analyzer.util.data import data_dir

if TYPE_CHECKING:
    from analyzer.pipeline.inputs import ScanInputs
    from analyzer.pipeline.result_cache import CachedScan
    from analyzer.pipeline.scan import ScanResult

EXIT_INPUT = 3
EXIT_ROOT = 4
EXIT_REMOVABLE = 1
EXIT_OUTPUT = 5
EXIT_PROFILE = 6

DEMO_REPO = "mini_sglang"
DEMO_ROOTS = ("deepseek_v2",)


def _fail(message: str, code: int) -> None:
    click.echo(f"depgraph: error: {message}", err=True)
    sys.exit(code)


def _or_exit(func: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a scan stage; bad input becomes one line on stderr and its exit code."""
    try:
        return func(*args, **kwargs)
    except (DiscoveryError, ScanError) as exc:
        _fail(str(exc), EXIT_INPUT)
    except RootError as exc:
        _fail(str(exc), EXIT_ROOT)
    except ProfileError as exc:
        _fail(str(exc), EXIT_PROFILE)


def _check_strict(stale: list[str], strict: bool) -> None:
    if strict and stale:
        _fail(f"stale profile entry: {stale[0]}"
              + (f" (and {len(stale) - 1} more)" if len(stale) > 1 else ""), EXIT_PROFILE)


def _scan_or_exit(path: Path, roots: tuple[str, ...], default_roots: bool,
                  excludes: tuple[str, ...], keep_targets: tuple[str, ...] = (),
                  profile: str | None = None, drop: tuple[str, ...] = (),
                  keep: tuple[str, ...] = (), strict: bool = False,
                  no_profile: bool = False, perf: dict | None = None) -> ScanResult:
    from analyzer.pipeline.scan import run_scan

    result = _or_exit(run_scan, path, list(roots), use_default_roots=default_roots,
                      excludes=excludes, keep_targets=keep_targets, profile=profile,
                      drop=drop, keep=keep, use_profile=not no_profile, **(perf or {}))
    _check_strict(result.profile.stale, strict)
    return result


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


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
@click.pass_context
def main(ctx: click.Context) -> None:
    """depgraph: dependency graph and dead-code plan for ML monorepos."""
    # A command builds millions of long-lived objects and almost no cycles: the cyclic
    # collector's passes over them are pure overhead (see analyzer.util.gc_pause). Frozen on the
    # way out, so re-enabling it does not start a full pass over what the command built.
    gc.disable()
    ctx.call_on_close(_restore_gc)


def _restore_gc() -> None:
    gc.freeze()
    gc.enable()


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
@click.option("--format", "formats", multiple=True, type=click.Choice(FORMATS),
              help="Output to write (repeatable; default: json and html).")
@click.option("--fail-on-removable", is_flag=True,
              help="Exit 1 when the plan has any deletion (for CI and pre-commit).")
@click.option("--no-result-cache", is_flag=True,
              help="Recompute the analysis even when no input changed (the facts cache is "
                   "still used).")
@click.option("--timings", "show_timings", is_flag=True,
              help="Print the seconds each stage took on stderr.")
@profile_options
@perf_options
def scan(path: Path | None, roots: tuple[str, ...], out_dir: Path, no_default_roots: bool,
         keep_targets: tuple[str, ...], excludes: tuple[str, ...], quiet: bool,
         formats: tuple[str, ...], fail_on_removable: bool, no_result_cache: bool,
         profile: str | None, drop: tuple[str, ...], keep: tuple[str, ...],
         strict: bool, no_profile: bool, jobs: int | None, cache_dir: Path | None,
         no_cache: bool, show_timings: bool) -> None:
    """Scan PATH (default: the bundled sample repo) and write the manifest and the report."""
    from analyzer.pipeline.inputs import gather_inputs
    from analyzer.pipeline.result_cache import ResultCache, scan_key

    started = time.perf_counter()
    if path is None:
        path = data_dir("sample_repos") / DEMO_REPO
        roots = roots or DEMO_ROOTS
    perf = _perf(jobs, cache_dir, no_cache, quiet)
    inputs = _or_exit(gather_inputs, path, excludes=excludes, profile=profile,
                      use_profile=not no_profile, cache_dir=perf["cache_dir"])
    fmts = tuple(dict.fromkeys(formats or DEFAULT_FORMATS))
    cache = (ResultCache(perf["cache_dir"])
             if perf["cache_dir"] is not None and not no_result_cache else None)
    key = scan_key(inputs, {"roots": roots, "default_roots": not no_default_roots,
                            "keep_targets": keep_targets, "drop": drop, "keep": keep})
    t0 = time.perf_counter()
    entry = cache.get(key) if cache is not None else None
    cached = entry is not None and all(f in entry.outputs for f in fmts)
    stages = {**inputs.timings, "result cache": time.perf_counter() - t0}
    if not cached:
        entry = _analyze(inputs, roots, not no_default_roots, keep_targets, drop, keep, perf,
                         fmts)
        stages.update(entry.timings)
        if cache is not None and not inputs.changed_since_key:
            cache.put(key, entry)
    assert entry is not None
    _check_strict(entry.stale, strict)
    t0 = time.perf_counter()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for fmt in fmts:
            for name, data in entry.outputs[fmt].items():
                _write_atomic(out_dir / name, data)
    except OSError as exc:
        _fail(f"cannot write to {out_dir}: {exc.strerror or exc}", EXIT_OUTPUT)
    stages["write"] = time.perf_counter() - t0
    if show_timings:
        stages["total"] = time.perf_counter() - started
        click.echo("timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in stages.items()),
                   err=True)
    if not quiet:
        for line in entry.stderr:
            click.echo(line, err=True)
        elapsed = f"{time.perf_counter() - started:.2f}s"
        if cached:
            elapsed += "; inputs unchanged since the last scan, results reused"
        for line in entry.stdout:
            click.echo(line.replace("{elapsed}", elapsed))
        # the main file of each format (md's per-feature files are listed in summary.md)
        click.echo("wrote " + " and ".join(str(out_dir / FILE_NAMES[f]) for f in fmts))
    if fail_on_removable and entry.has_deletions:
        sys.exit(EXIT_REMOVABLE)


def _analyze(inputs: ScanInputs, roots: tuple[str, ...], default_roots: bool,
             keep_targets: tuple[str, ...], drop: tuple[str, ...], keep: tuple[str, ...],
             perf: dict[str, Any], fmts: tuple[str, ...]) -> CachedScan:
    """Run the analysis on read inputs and render every requested output."""
    from analyzer.outputs.render import render, summary_lines
    from analyzer.pipeline.result_cache import CachedScan
    from analyzer.pipeline.scan import analyze
    from analyzer.util.gc_pause import gc_paused
    from analyzer.verify.baseline import verify_baseline

    result = _or_exit(analyze, inputs, list(roots), use_default_roots=default_roots,
                      keep_targets=keep_targets, drop=drop, keep=keep, **perf)
    stdout, stderr = summary_lines(result)
    t0 = time.perf_counter()
    with gc_paused():
        baseline = verify_baseline(result) if "json" in fmts else None
        outputs = {f: render(result, f, baseline) for f in fmts}
    timings = {k: v for k, v in result.timings.items() if k not in inputs.timings}
    timings["render"] = time.perf_counter() - t0
    return CachedScan(outputs, stdout, stderr, list(result.profile.stale),
                      bool(result.plan.deletions), timings)


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
    from analyzer.cli.apply import apply_command
    from analyzer.cli.graph import graph_command
    from analyzer.cli.verify import verify_command

    main.add_command(apply_command, "apply")
    main.add_command(verify_command, "verify")
    main.add_command(graph_command, "graph")


_register_commands()
