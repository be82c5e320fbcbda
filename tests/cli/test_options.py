"""Command line, shared options: one decorator turns the scan options into one ScanOptions value
and says which fields were typed on the command line; errors map to exit codes in one place."""

from __future__ import annotations

import click
from click.testing import CliRunner

from analyzer.cli.options import DepgraphCommand, scan_options
from analyzer.config.options import ScanOptions
from analyzer.errors import RootError

SEEN: list[tuple[ScanOptions, frozenset[str]]] = []


@click.command(cls=DepgraphCommand)
@scan_options
def probe(options: ScanOptions, given: frozenset[str], jobs: int | None, cache_dir: object,
          no_cache: bool) -> None:
    SEEN.append((options, given))
    if options.roots == ("boom",):
        raise RootError("unknown root 'boom'")


def test_options_become_one_value_and_the_typed_ones_are_named() -> None:
    SEEN.clear()
    out = CliRunner().invoke(probe, ["-r", "a", "--roots", "b", "--no-default-roots",
                                     "--drop", "fa3", "--exclude", "x/", "--strict"])
    assert out.exit_code == 0, out.output
    options, given = SEEN[0]
    assert options == ScanOptions(roots=("a", "b"), use_default_roots=False, excludes=("x/",),
                                  drop=("fa3",), strict=True)
    assert given == {"roots", "use_default_roots", "drop", "excludes", "strict"}
    # strict decides the exit code, not the analysis: it is no part of the cache key
    assert "strict" not in dict(options.cache_key())


def test_a_depgraph_error_is_one_line_and_its_exit_code() -> None:
    out = CliRunner().invoke(probe, ["-r", "boom"])
    assert out.exit_code == 4
    assert out.output.strip() == "depgraph: error: unknown root 'boom'"
