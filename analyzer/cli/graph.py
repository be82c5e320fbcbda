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
    verbosity_options,
    version_option,
)
from analyzer.config.options import ScanOptions
from analyzer.errors import OutputError
from analyzer.outputs.graph_export import FORMATS, focus_subgraph


@click.command("graph", cls=DepgraphCommand)
@click.argument("path", required=False, default=Path("."),
                type=click.Path(path_type=Path))
@scan_options
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="dot", show_default=True,
              help="Output format.")
@click.option("--out", "out", type=click.Path(path_type=Path), default=None,
              help="File to write (default: standard output).")
@click.option("--live-only", is_flag=True, help="Only nodes live from the roots.")
@click.option("--focus", default=None, metavar="NODE",
              help="Only the neighbourhood of NODE (a module, module:Symbol, file, target, op "
                   "or node id), --depth edges either way.")
@click.option("--depth", type=click.IntRange(min=0), default=1, show_default=True,
              help="With --focus: how many edges out.")
@click.option("--feature", default=None, metavar="NAME",
              help="Only a dropped feature: its items, its blockers and what they enter.")
@verbosity_options("Also print the node and edge counts on stderr.")
@version_option
def graph_command(path: Path, fmt: str, out: Path | None, live_only: bool, focus: str | None,
                  depth: int, feature: str | None, quiet: bool, verbose: bool,
                  options: ScanOptions,
                  given: frozenset[str], jobs: int | None, cache_dir: Path | None,
                  no_cache: bool) -> None:
    """Scan PATH (default: the current folder) and write its dependency graph (modules,
    symbols, files, ops, targets; edges with kind and file:line) as DOT, GraphML, node-link
    JSON or Mermaid."""
    from analyzer.analysis.roots import resolve_roots
    from analyzer.analysis.why import find_node
    from analyzer.errors import InputError
    from analyzer.outputs.graph_export import export_graph, live_subgraph

    result = scan_tree(path, options,
                       run_settings(jobs, cache_dir, no_cache, out is None or quiet))
    graph = live_subgraph(result.graph, result.liveness.live) if live_only else result.graph
    if feature is not None:
        report = next((f for f in result.features if f.name == feature), None)
        if report is None:
            names = ", ".join(f.name for f in result.features) or "none"
            raise InputError(f"--feature {feature}: not a dropped feature of this scan "
                             f"(dropped: {names})")
        keep = {i.node for i in report.items} | {
            b.src for b in result.blockers.get(feature, [])}
        graph = graph.subgraph(n for n in keep if n in graph).copy()
    if focus is not None:
        centre = find_node(graph, focus, result.root) or resolve_roots(
            [focus], graph, result.root)[0]
        graph = focus_subgraph(graph, centre, depth)
    text = export_graph(graph, fmt)
    counts = f"{graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges"
    if out is None:
        click.echo(text, nl=False)
        if verbose:
            click.echo(counts, err=True)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"cannot write {out}: {exc.strerror or exc}") from None
    if not quiet:
        click.echo(f"wrote {out} ({counts})", err=True)
