"""Command line, ``depgraph features [PATH]``: the features of the profile the tree gets
(``analyzer.pipeline.features_view``) -- what each is, whether it is dropped by default and in
this run, its anchors on this tree, the candidate files for stale ones -- as a table, or JSON
with ``--format json``. Exit codes as for scan: 3 bad input, 6 profile error (no profile,
an unknown --drop/--keep). Registered by ``analyzer.cli.main``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from analyzer.cli.options import (
    DepgraphCommand,
    close_progress,
    perf_options,
    run_settings,
    version_option,
    with_config,
)
from analyzer.config.options import ScanOptions
from analyzer.util.words import count


@click.command("features", cls=DepgraphCommand)
@click.argument("path", required=False, default=Path("."), type=click.Path(path_type=Path))
@click.option("--profile", "profile", default=None,
              help="Profile file or built-in name (default: the one a scan of PATH gets).")
@click.option("--no-profile", is_flag=True, help="Use no profile (then there is nothing to "
              "list: exit 6).")
@click.option("--drop", "drop", multiple=True,
              help="Feature this run would drop too (the 'dropped' column). Repeatable.")
@click.option("--keep", "keep", multiple=True,
              help="Feature this run would keep although the profile drops it. Repeatable.")
@click.option("--exclude", "excludes", multiple=True,
              help="Extra gitignore-style pattern to skip. Repeatable.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="json: one object (profile, features with name, "
              "description, requires, by_default, dropped, anchors).")
@click.option("--quiet", "-q", is_flag=True, help="No progress line.")
@perf_options
@version_option
def features_command(path: Path, profile: str | None, no_profile: bool, drop: tuple[str, ...],
                     keep: tuple[str, ...], excludes: tuple[str, ...], fmt: str, quiet: bool,
                     jobs: int | None, cache_dir: Path | None, no_cache: bool) -> None:
    """List the features of the profile PATH (default: here) gets: what each is, whether it
    is dropped by default and in this run (--drop/--keep), and its anchors on this tree
    (matched/total; the stale ones with the files the code may have moved to)."""
    from analyzer.pipeline.features_view import features_view

    ctx = click.get_current_context()
    given = frozenset(name for name, param in (("drop", "drop"), ("keep", "keep"),
                                                ("excludes", "excludes"))
                      if (src := ctx.get_parameter_source(param)) is not None
                      and src.name == "COMMANDLINE")
    options = with_config(ScanOptions(profile=profile, use_profile=not no_profile, drop=drop,
                                      keep=keep, excludes=excludes), given, path)
    settings = run_settings(jobs, cache_dir, no_cache, quiet)
    try:
        view = features_view(path, options, settings)
    finally:
        close_progress(settings)
    if fmt == "json":
        click.echo(json.dumps({
            "schema": "depgraph-features/1",
            "profile": {"name": view.profile.name, "source": view.profile.source},
            "features": [{
                "name": r.name, "description": r.description, "requires": list(r.requires),
                "by_default": r.by_default, "dropped": r.dropped,
                "anchors": {"matched": r.anchors.matched, "total": r.anchors.total,
                            "stale": [{"kind": a.kind, "value": a.value,
                                       "candidates": list(a.candidates)}
                                      for a in r.anchors.stale]}}
                for r in view.rows]}, indent=2))
        return
    p = view.profile
    click.echo(f"profile {p.name} ({p.source}): {count(len(view.rows), 'feature')}")
    width = max((len(r.name) for r in view.rows), default=7)
    click.echo(f"  {'feature':<{width}}  {'dropped':<17}  anchors  description")
    for r in view.rows:
        state = ("yes (default)" if r.dropped and r.by_default else "yes (--drop)"
                 if r.dropped else "no (--keep)" if r.by_default else "no")
        a = r.anchors
        mark = "  OUT OF DATE" if a.out_of_date else ""
        click.echo(f"  {r.name:<{width}}  {state:<17}  {a.matched:>3}/{a.total:<3}  "
                   f"{r.description}{mark}")
        if r.requires:
            click.echo(f"  {'':<{width}}  requires {', '.join(r.requires)}")
        for s in a.stale:
            click.echo(f"  {'':<{width}}  stale: {s}")
