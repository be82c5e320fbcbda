"""Codemod stage, command line: ``depgraph apply MANIFEST [--root DIR] [--write] ...``.

Registered by ``analyzer.cli.main`` as ``main.add_command(apply_command, "apply")``. Dry run by
default (unified diff on stdout, or with ``--stat`` one line per file; summary on stderr);
``--feature NAME`` applies one dropped feature's deletions; ``--write`` edits the tree, saves a
reverse patch and records the run in ``ROOT/.depgraph-apply.json``. Exit codes: 0 done (or
nothing to do, "already applied"), 2 usage error, 7 refused (stale file, unsafe path, invalid
manifest, edits that cannot be applied, an existing ``--patch-out``, a partly applied file
that needs a re-scan): nothing was changed.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from analyzer.cli.options import DepgraphCommand


@click.command("apply", cls=DepgraphCommand)
@click.argument("manifest", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Tree to edit (default: the manifest's root).")
@click.option("--write", is_flag=True, help="Apply the edits (default: print the diff only).")
@click.option("--feature", default=None, metavar="NAME",
              help="Apply only the deletions of this dropped feature.")
@click.option("--stat", is_flag=True,
              help="Instead of the diff: one line per file (lines removed, deleted or edited).")
@click.option("--patch-out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where --write saves the reverse patch, a new file "
                   "(default: ROOT/depgraph-apply-<timestamp>.patch).")
@click.pass_context
def apply_command(ctx: click.Context, manifest: Path, root: Path | None, write: bool,
                  feature: str | None, stat: bool, patch_out: Path | None) -> None:
    """Apply MANIFEST (from depgraph scan): delete files, ranges, imports and dead branches."""
    from analyzer.codemod.apply import run_apply

    if feature is not None:
        _check_feature(manifest, feature)
    result = run_apply(manifest, root, write=write, feature=feature, patch_out=patch_out,
                       progress=_progress() if sys.stderr.isatty() else None)
    if stat:
        for c in result.changes:
            removed = len(c.old.splitlines()) - len((c.new or b"").splitlines())
            click.echo(f"{removed:>7}  {'deleted' if c.deleted else 'edited '}  {c.path}")
    elif not write and result.diff:
        click.echo(result.diff, nl=False)
    for c in result.changes if write else ():
        click.echo(f"{'deleted' if c.deleted else 'edited'} {c.path}", err=True)
    for s in result.skipped:
        click.echo(f"warning: {s}", err=True)
    click.echo(result.summary(write), err=True)


def _progress() -> Callable[[int, int], None]:
    """A one-line bar with the time left, drawn once editing has taken half a second."""
    started = time.monotonic()

    def show(done: int, total: int) -> None:
        elapsed = time.monotonic() - started
        if elapsed < 0.5 and done < total:
            return
        filled = 30 * done // max(total, 1)
        left = f", {elapsed / done * (total - done):.0f}s left" if done < total else ""
        sys.stderr.write(f"\rdepgraph apply: editing [{'#' * filled}{'.' * (30 - filled)}] "
                         f"{done}/{total}{left}   " + ("\n" if done == total else ""))
        sys.stderr.flush()
    return show


def _check_feature(manifest: Path, feature: str) -> None:
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        known = sorted({f for e in data.get("deletions", [])
                        for f in (e.get("feature", ""), *e.get("features", ()),
                                  *e.get("with_features", ()))} - {""})
    except (OSError, ValueError, AttributeError, TypeError):
        return  # run_apply reports the broken manifest
    if feature not in known:
        raise click.BadParameter(f"no deletions for feature {feature!r} (manifest has: "
                                 f"{', '.join(known) or 'none'})", param_hint="--feature")
