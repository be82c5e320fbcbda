"""Command line: a thin click group mapping one ``ScanOptions`` value onto the pipeline and the
writers. Every ``DepgraphError`` a stage raises becomes one line on stderr and its exit code,
here and only here (``DepgraphGroup``); the codes are documented in the README:

  0  success
  1  --fail-on-removable and the plan has deletions
  2  usage error (bad option; click's own code)
  3  bad input: missing path, not a directory, nothing to analyze
  4  unknown or ambiguous root
  5  cannot write the output directory
  6  profile error (bad key or value, unknown feature: scan --drop, apply --feature); with
     --strict, stale entries too
  7  apply refused (another tree, stale files; --commit: git not ready): nothing written
  8  verify found problems
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from analyzer import __version__
from analyzer.cli.options import (
    DepgraphCommand,
    check_strict,
    close_progress,
    config_of,
    require_roots,
    run_settings,
    scan_options,
    scan_tree,
    verbosity_options,
    version_option,
)
from analyzer.config.options import ScanOptions
from analyzer.errors import EXIT_REMOVABLE, InputError, OutputError, RootError
from analyzer.outputs.render import DEFAULT_FORMATS, FILE_NAMES, FORMATS, VERBOSE
from analyzer.util.data import data_dir

if TYPE_CHECKING:
    from analyzer.pipeline.inputs import ScanInputs
    from analyzer.pipeline.result_cache import CachedScan
    from analyzer.pipeline.scan import RunSettings

DEMO_REPO = "mini_sglang"
DEMO_ROOTS = ("deepseek_v2",)


class DepgraphGroup(click.Group):
    """The ``depgraph`` group: its commands map errors to exit codes (``DepgraphCommand``)."""

    command_class = DepgraphCommand


@click.group(cls=DepgraphGroup, context_settings={"help_option_names": ["-h", "--help"]})
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


def _demo_flag(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    ctx.meta["depgraph.demo"] = value
    return value


def _scan_path(ctx: click.Context, _param: click.Parameter, value: Path | None) -> Path:
    """PATH as given, else the current folder (as ruff, knip and vulture do); ``--demo``: the
    bundled sample repo (processed first: an eager option)."""
    if ctx.meta.get("depgraph.demo"):
        if value is not None:
            raise click.UsageError("--demo scans the bundled sample repo: give no PATH")
        return data_dir("sample_repos") / DEMO_REPO
    return value if value is not None else Path(".")


@main.command()
@click.argument("path", required=False, type=click.Path(path_type=Path), callback=_scan_path)
@click.option("--demo", is_flag=True, is_eager=True, expose_value=True, callback=_demo_flag,
              help="Scan the bundled sample monorepo (roots: deepseek_v2) instead of PATH.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=Path("depgraph-out"),
              show_default=True, help="Folder for manifest.json and report.html.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.option("--verbose", "-v", is_flag=True,
              help="Also list every C/C++/CUDA construct tree-sitter could not parse.")
@click.option("--format", "formats", multiple=True, type=click.Choice(FORMATS),
              help="Output to write (repeatable; default: json and html).")
@click.option("--fail-on-removable", is_flag=True,
              help="Exit 1 when the plan has any deletion (for CI and pre-commit).")
@click.option("--no-result-cache", is_flag=True,
              help="Recompute the analysis even when no input changed (the facts cache is "
                   "still used).")
@click.option("--timings", "show_timings", is_flag=True,
              help="Print the seconds each stage took on stderr.")
@version_option
@scan_options
def scan(path: Path, demo: bool, out_dir: Path, quiet: bool, verbose: bool,
         formats: tuple[str, ...], fail_on_removable: bool, no_result_cache: bool,
         show_timings: bool,
         options: ScanOptions, given: frozenset[str], jobs: int | None,
         cache_dir: Path | None, no_cache: bool) -> None:
    """Scan PATH (default: the current folder) and write the manifest and the report."""
    from analyzer.core.store import Store
    from analyzer.pipeline.inputs import gather_inputs
    from analyzer.pipeline.result_cache import ResultCache, scan_key
    from analyzer.util.atomic import atomic_write

    started = time.perf_counter()
    if demo:
        options = options if options.roots else options.replace(roots=DEMO_ROOTS)
    found = config_of(path, options)
    if found is not None:  # the config's scan-only keys, unless typed on the command line
        config, base = found
        formats = formats or config.formats
        ctx = click.get_current_context()

        def typed(param: str) -> bool:
            source = ctx.get_parameter_source(param)
            return source is not None and source.name == "COMMANDLINE"
        if config.out and not typed("out_dir"):
            out_dir = Path(config.out) if config.out == "-" else base / config.out
        if config.fail_on_removable is not None and not typed("fail_on_removable"):
            fail_on_removable = config.fail_on_removable
        if config.jobs is not None and jobs is None:
            jobs = config.jobs
        if config.cache_dir and cache_dir is None:
            cache_dir = base / config.cache_dir
    settings = run_settings(jobs, cache_dir, no_cache, quiet)
    try:
        if settings.stage is not None:
            settings.stage("discover")
        inputs = gather_inputs(path, options, cache_dir=settings.cache_dir)
        require_roots(options, path)
        fmts = tuple(dict.fromkeys(formats or DEFAULT_FORMATS))
        cache = (ResultCache(settings.cache_dir)
                 if settings.cache_dir is not None and not no_result_cache else None)
        key = scan_key(inputs, options)
        t0 = time.perf_counter()
        entry = cache.get(key) if cache is not None else None
        cached = entry is not None and all(f in entry.outputs for f in fmts)
        stages = {**inputs.timings, "result cache": time.perf_counter() - t0}
        if not cached:
            entry = _analyze(inputs, options, settings, fmts)
            stages.update(entry.timings)
            if cache is not None and not inputs.changed_since_key:
                cache.put(key, entry)
            if settings.cache_dir is not None:  # the store's one eviction policy
                t0 = time.perf_counter()
                Store(settings.cache_dir).evict()
                stages["evict"] = time.perf_counter() - t0
    finally:
        close_progress(settings)
    assert entry is not None
    check_strict(entry.stale, options)
    t0 = time.perf_counter()
    to_stdout = str(out_dir) == "-"
    if to_stdout and fmts != ("json",):
        raise InputError("--out - writes the manifest to standard output: it takes "
                         "--format json alone")
    try:
        if to_stdout:
            sys.stdout.write(entry.outputs["json"][FILE_NAMES["json"]].data().decode("utf-8"))
            sys.stdout.flush()
        else:
            out_dir.mkdir(parents=True, exist_ok=True)
            for fmt in fmts:
                for name, packed in entry.outputs[fmt].items():
                    atomic_write(out_dir / name, packed.write_to, sync=False)
    except OSError as exc:
        raise OutputError(f"cannot write to {out_dir}: {exc.strerror or exc}") from None
    stages["write"] = time.perf_counter() - t0
    if show_timings:
        stages["total"] = time.perf_counter() - started
        click.echo("timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in stages.items()),
                   err=True)
    if not quiet:
        for line in entry.stderr:
            if line.startswith(VERBOSE):
                if verbose:
                    click.echo(line[len(VERBOSE):], err=True)
                continue
            click.echo(line, err=True)
        elapsed = f"{time.perf_counter() - started:.2f}s"
        if cached:
            elapsed += "; inputs unchanged since the last scan, results reused"
        # with the manifest on stdout, the summary goes to stderr
        for line in entry.stdout:
            click.echo(line.replace("{elapsed}", elapsed), err=to_stdout)
        if not to_stdout:  # every file written, the main file of each format first
            written = [name for f in fmts for name in entry.outputs[f]]
            click.echo("wrote " + ", ".join(str(out_dir / name) for name in written))
            if "json" in fmts and entry.has_deletions:  # the walkthrough's next step
                click.echo(f"next: depgraph apply {out_dir / FILE_NAMES['json']} --stat   "
                           "(review; then --write, or --write --commit: a git commit per "
                           "feature)")
    if fail_on_removable and entry.has_deletions:
        sys.exit(EXIT_REMOVABLE)


def _analyze(inputs: ScanInputs, options: ScanOptions, settings: RunSettings,
             fmts: tuple[str, ...]) -> CachedScan:
    """Run the analysis on read inputs and render every requested output."""
    from analyzer.outputs.render import render, summary_lines
    from analyzer.pipeline.result_cache import CachedScan
    from analyzer.pipeline.scan import analyze
    from analyzer.util.gc_pause import gc_paused

    result = analyze(inputs, options, settings)
    stdout, stderr = summary_lines(result)
    if settings.stage is not None:
        settings.stage("render")
    t0 = time.perf_counter()
    with gc_paused():
        outputs = {f: render(result, f) for f in fmts}
    timings = {k: v for k, v in result.timings.items() if k not in inputs.timings}
    timings["render"] = time.perf_counter() - t0
    return CachedScan(outputs, stdout, stderr, list(result.profile.stale),
                      bool(result.plan.deletions), timings)


def _why_target(ctx: click.Context, _param: click.Parameter, value: str | None) -> str:
    """``why TARGET`` alone: TARGET in the current folder (the one argument came as PATH)."""
    if value is not None:
        return value
    first = ctx.params.get("path")
    if first is None:
        raise click.UsageError("Missing argument 'TARGET'.")
    ctx.params["path"] = Path(".")
    return str(first)


@main.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.argument("target", required=False, callback=_why_target)
@click.option("--manifest", "manifest", default=None, type=click.Path(path_type=Path),
              help="Answer from a scan's manifest.json (no re-scan; the scan options it "
                   "recorded apply).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="json: the answer as one object (item, status: root, "
              "live, dead or kept; feature, chain, to_free, deletions, lines).")
@verbosity_options("List every deletion of a dead TARGET and every chain (not the first few).")
@version_option
@scan_options
def why(path: Path, target: str, manifest: Path | None, fmt: str, quiet: bool, verbose: bool,
        options: ScanOptions, given: frozenset[str], jobs: int | None,
        cache_dir: Path | None, no_cache: bool) -> None:
    """Print the shortest live chain from a root to TARGET, or why it is dead.

    PATH defaults to the current folder. TARGET: a module, module:Symbol, Python or native
    file path, CMake target name, op (op:ns::name) or any node id. With --manifest, the
    answer comes from what the scan recorded, in well under a second."""
    if manifest is not None:
        from analyzer.cli.manifest_file import readable_manifest
        from analyzer.cli.why_manifest import answer

        readable_manifest(manifest)
        told = answer(manifest, target, shown=None if verbose else 10)
        click.echo(told.to_json() if fmt == "json" else told.text(), nl=fmt != "json")
        return
    from analyzer.analysis.features import feature_of_node
    from analyzer.analysis.roots import resolve_roots
    from analyzer.analysis.why import answer_of, find_node

    require_roots(options, path)
    result = scan_tree(path, options, run_settings(jobs, cache_dir, no_cache, True))
    node = find_node(result.graph, target, result.root)
    if node is None:
        try:
            node = resolve_roots([target], result.graph, result.root)[0]
        except RootError as exc:
            raise RootError(str(exc).replace("root", "target", 1)) from None
    feature = feature_of_node(result.graph.nodes[node], result.profile.features,
                              result.profile.kept_features)
    edits = [b.edit for b in result.blockers.get(feature or "", []) if node in b.blocks]
    told = answer_of(result.graph, result.liveness, node, feature, edits, result.root_reasons,
                     shown=None if verbose else 5, deletions=result.plan.deletions)
    click.echo(told.to_json() if fmt == "json" else told.text(), nl=fmt != "json")


def _register_commands() -> None:
    from analyzer.cli.apply import apply_command
    from analyzer.cli.features import features_command
    from analyzer.cli.graph import graph_command
    from analyzer.cli.init import init_command
    from analyzer.cli.verify import verify_command

    main.add_command(apply_command, "apply")
    main.add_command(verify_command, "verify")
    main.add_command(graph_command, "graph")
    main.add_command(init_command, "init")
    main.add_command(features_command, "features")


_register_commands()
