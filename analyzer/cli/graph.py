"""Command line, graph: ``depgraph graph PATH`` scans and writes the dependency graph (output
stage: ``analyzer.outputs.graph_export`` formats it; this module maps options and writes).

Exit codes as for scan: 0 written; 3 bad input; 4 unknown root; 5 cannot write ``--out``;
6 profile error. Registered by ``analyzer.cli.main``: ``main.add_command(graph_command, "graph")``.
"""

from __future__ import annotations

from pathlib import Path

import click

from analyzer.cli.options import (
    DepgraphCommand,
    run_settings,
    scan_options,
    scan_tree,
)
from analyzer.config.options import ScanOptions
from analyzer.errors import OutputError
from analyzer.outputs.graph_export import FORMATS


@click.command("graph", cls=DepgraphCommand)
@click.argument("path", type=click.Path(path_type=Path))
@scan_options
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="dot", show_default=True,
              help="Output format.")
@click.option("--out", "out", type=click.Path(path_type=Path), default=None,
              help="File to write (default: standard output).")
@click.option("--live-only", is_flag=True, help="Only nodes live from the roots.")
def graph_command(path: Path, fmt: str, out: Path | None, live_only: bool,
                  options: ScanOptions, given: frozenset[str], jobs: int | None,
                  cache_dir: Path | None, no_cache: bool) -> None:
    """Scan PATH and write its dependency graph (modules, symbols, files, ops, targets; edges
    with kind and file:line) as DOT, GraphML, node-link JSON or Mermaid."""
    from analyzer.outputs.graph_export import export_graph, live_subgraph

    result = scan_tree(path, options, run_settings(jobs, cache_dir, no_cache, out is None))
    graph = live_subgraph(result.graph, result.liveness.live) if live_only else result.graph
    text = export_graph(graph, fmt)
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    click.echo(f"wrote {out} ({graph.number_of_nodes()} nodes, "
               f"{graph.number_of_edges()} edges)", err=True)
