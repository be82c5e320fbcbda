"""Command line, graph: ``depgraph graph PATH`` scans and writes the dependency graph (output
stage: ``analyzer.outputs.graph_export`` formats it; this module maps options and writes).

Exit codes as for scan: 0 written; 3 bad input; 4 unknown root; 5 cannot write ``--out``;
6 profile error. Registered by ``analyzer.cli.main``: ``main.add_command(graph_command, "graph")``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from analyzer.cli.options import perf_settings
from analyzer.cli.verify import scan_options
from analyzer.outputs.graph_export import FORMATS


def _fail(message: str, code: int) -> None:
    click.echo(f"depgraph: error: {message}", err=True)
    sys.exit(code)


@click.command("graph")
@click.argument("path", type=click.Path(path_type=Path))
@scan_options
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="dot", show_default=True,
              help="Output format.")
@click.option("--out", "out", type=click.Path(path_type=Path), default=None,
              help="File to write (default: standard output).")
@click.option("--live-only", is_flag=True, help="Only nodes live from the roots.")
def graph_command(path: Path, roots: tuple[str, ...], no_default_roots: bool,
                  keep_targets: tuple[str, ...], excludes: tuple[str, ...],
                  profile: str | None, drop: tuple[str, ...], keep: tuple[str, ...],
                  no_profile: bool, fmt: str, out: Path | None, live_only: bool,
                  jobs: int | None, cache_dir: Path | None, no_cache: bool) -> None:
    """Scan PATH and write its dependency graph (modules, symbols, files, ops, targets; edges
    with kind and file:line) as DOT, GraphML, node-link JSON or Mermaid."""
    from analyzer.analysis.roots import RootError
    from analyzer.config.types import ProfileError
    from analyzer.discover.walk import DiscoveryError
    from analyzer.outputs.graph_export import export_graph, live_subgraph
    from analyzer.pipeline.scan import ScanError, run_scan

    try:
        result = run_scan(path, list(roots), use_default_roots=not no_default_roots,
                          excludes=excludes, keep_targets=keep_targets, profile=profile,
                          drop=drop, keep=keep, use_profile=not no_profile,
                          **perf_settings(jobs, cache_dir, no_cache, out is None))
    except (DiscoveryError, ScanError) as exc:
        _fail(str(exc), 3)
    except RootError as exc:
        _fail(str(exc), 4)
    except ProfileError as exc:
        _fail(str(exc), 6)
    graph = live_subgraph(result.graph, result.liveness.live) if live_only else result.graph
    text = export_graph(graph, fmt)
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {out}: {exc.strerror or exc}", 5)
    click.echo(f"wrote {out} ({graph.number_of_nodes()} nodes, "
               f"{graph.number_of_edges()} edges)", err=True)
