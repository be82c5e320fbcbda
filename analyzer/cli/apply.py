"""Codemod stage, command line: ``depgraph apply MANIFEST [--root DIR] [--write] ...``.

Registered by ``analyzer.cli.main`` as ``main.add_command(apply_command, "apply")``. Dry run by
default, answered from the manifest's entries (every check made, no edit computed: one line per
file on stdout, ``--stat`` the same as a table; the tree and a summary on stderr); ``--diff``
computes the edits and prints the unified diff;
``--feature NAME`` applies one dropped feature's deletions; ``--write`` edits the tree, saves a
reverse patch and records the run in ``ROOT/.depgraph-apply.json``; ``--commit`` (with
``--write``) makes one git commit per dropped feature, then one for the other dead code
(``analyzer.codemod.git_commit``). Exit codes: 0 done (or nothing to do, "already applied"),
2 usage error, 6 ``--feature`` names no feature of the manifest (as ``scan --drop``: "did you
mean"), 7 refused (a manifest made for another tree, stale file, unsafe path, invalid
manifest, edits that cannot be applied, an existing ``--patch-out``, a partly applied file
that needs a re-scan; with ``--commit``: not a git work tree, files it would touch untracked
or changed): nothing was changed.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from analyzer.cli.manifest_file import readable_manifest
from analyzer.cli.options import DepgraphCommand, version_option
from analyzer.errors import ProfileError, suggest
from analyzer.util.words import count


@click.command("apply", cls=DepgraphCommand)
@click.argument("manifest", type=click.Path(path_type=Path))
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Tree to edit (default: the manifest's root).")
@click.option("--write", is_flag=True,
              help="Apply the edits (default: a dry run listing what would change).")
@click.option("--diff", "diff", is_flag=True,
              help="Dry run: compute the edits and print the unified diff.")
@click.option("--feature", default=None, metavar="NAME",
              help="Apply only the deletions of this dropped feature.")
@click.option("--stat", is_flag=True,
              help="Dry run: one line per file (the plan's lines, deleted or edited), from "
                   "the manifest alone.")
@click.option("--patch-out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where --write saves the undo diff (the diff of its edits: patch -R "
                   "-p1 undoes them), a new file (default: "
                   "ROOT/depgraph-apply-<timestamp>.patch).")
@click.option("--commit", "commit", is_flag=True,
              help="With --write: one git commit per dropped feature (then one for the other "
                   "dead code), each message listing what went and why.")
@click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
              help="Cache folder of the computed edits (default: $XDG_CACHE_HOME/depgraph or "
                   "~/.cache/depgraph, where the scan's gate left them).")
@click.option("--no-cache", is_flag=True, help="Compute every edit again.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.option("--verbose", "-v", is_flag=True,
              help="Also list the files --diff would change (--write always lists them).")
@version_option
@click.pass_context
def apply_command(ctx: click.Context, manifest: Path, root: Path | None, write: bool,
                  diff: bool, feature: str | None, stat: bool, patch_out: Path | None,
                  commit: bool, cache_dir: Path | None, no_cache: bool, quiet: bool,
                  verbose: bool) -> None:
    """Apply MANIFEST (from depgraph scan): delete files, ranges, imports and dead branches."""
    from analyzer.codemod.apply import run_apply
    from analyzer.util.fingerprint import default_cache_dir

    readable_manifest(manifest)
    cache = None if no_cache else (cache_dir or default_cache_dir())
    if feature is not None and not _check_feature(manifest, feature):
        click.echo(f"nothing to apply: the plan deletes nothing of feature {feature!r} alone "
                   "(its share is empty: what it holds is blocked, or goes only with another "
                   "feature; the report's blockers say which)", err=True)
        return
    if commit:
        if not write:
            raise click.UsageError("--commit needs --write (a dry run commits nothing)")
        if patch_out is not None:
            raise click.UsageError("--commit writes an undo diff per commit in the root: "
                                   "no --patch-out")
        _commit_steps(manifest, root, feature, quiet, cache)
        return
    progress = _progress() if sys.stderr.isatty() and not quiet else None
    result = run_apply(manifest, root, write=write, feature=feature, patch_out=patch_out,
                       progress=progress, edit=diff, cache_dir=cache)
    if not write and not quiet:
        click.echo(f"tree: {_tree_of(manifest, root)}", err=True)
    for p in result.previews:
        if stat:
            click.echo(f"{p.lines:>7}  {'deleted' if p.deleted else 'edited '}  {p.path}")
        else:
            click.echo(f"would {'delete' if p.deleted else 'edit'} {p.path}: "
                       f"{count(p.lines, 'line')} "
                       f"by the plan's count ({p.entries} entr{'ies' if p.entries != 1 else 'y'})")
    if diff and not write and result.diff:
        click.echo(result.diff, nl=False)
    for c in result.changes if (write and not quiet) or verbose else ():
        verb = ("deleted", "edited") if write else ("would delete", "would edit")
        click.echo(f"{verb[0] if c.deleted else verb[1]} {c.path}", err=True)
    for s in result.skipped:
        click.echo(f"warning: {s}", err=True)
    if not quiet:
        click.echo(result.summary(write), err=True)
        if feature is not None and (result.changes or result.previews):
            click.echo("  " + _share_of(manifest, feature, root), err=True)


def _tree_of(manifest_path: Path, root: Path | None) -> Path:
    """The tree a dry run would change: ``--root``, else the manifest's."""
    if root is not None:
        return root.resolve()
    try:
        return Path(json.loads(manifest_path.read_text(encoding="utf-8"))["root"])
    except (OSError, ValueError, KeyError, TypeError):
        return Path("?")


def _share_of(manifest_path: Path, feature: str, root: Path | None) -> str:
    """The share line (``git_commit.share_line``) of ``--feature`` applied now."""
    from analyzer.codemod import apply_state, git_commit
    from analyzer.codemod.apply import load_manifest, selected

    manifest = load_manifest(manifest_path)
    tree = Path(manifest["root"]) if root is None else root
    done = apply_state.load(tree, strict=False).applied_features or frozenset()
    entries = [e for e in manifest["deletions"] if selected(e, done | {feature})]
    return git_commit.share_line(manifest, feature, entries, done - {feature})


def _commit_steps(manifest_path: Path, root: Path | None, feature: str | None,
                  quiet: bool, cache: Path | None = None) -> None:
    """--write --commit: the features one commit each (or the one --feature names), then,
    without --feature, the other dead code; git is checked before anything is written."""
    from analyzer.codemod import apply_state, git_commit
    from analyzer.codemod.apply import load_manifest, run_apply, selected

    manifest = load_manifest(manifest_path)
    tree = Path(manifest["root"]) if root is None else root
    state = apply_state.load(tree, strict=False)
    before = state.applied_features
    if before is None:
        click.echo("already applied: the whole manifest was applied before", err=True)
        return
    dropped = list((manifest.get("profile") or {}).get("dropped", []))
    steps: list[str | None] = [feature] if feature is not None else [*dropped, None]
    final = None if feature is None else before | {feature}
    git_commit.preflight(tree, {e["path"] for e in manifest["deletions"]
                                if selected(e, final) and not selected(e, before)})
    done: frozenset[str] = before
    for step in steps:
        after = None if step is None else done | {step}
        entries = [e for e in manifest["deletions"]
                   if selected(e, after) and not selected(e, done)]
        result = run_apply(manifest_path, root, write=True, feature=step, cache_dir=cache)
        label = f"feature {step}" if step is not None else "other dead code"
        if not result.changes:
            if not quiet:
                click.echo(f"{label}: nothing to change", err=True)
            done = after if after is not None else done
            continue
        deleted = sum(1 for c in result.changes if c.deleted)
        text = git_commit.message(manifest, step, entries, sum(int(e["lines"]) for e in entries),
                                   deleted, len(result.changes) - deleted, result.patch_path,
                                   done)
        sha = git_commit.commit(tree, [c.path for c in result.changes], text)
        if not quiet:
            click.echo(f"committed {sha}: {text.splitlines()[0]}", err=True)
        done = after if after is not None else done


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


def _check_feature(manifest: Path, feature: str) -> bool:
    """Whether ``feature`` has deletions; False for a dropped feature without any (nothing
    to apply). An unknown ``--feature`` exits as an unknown ``scan --drop`` does: exit 6,
    with the closest name."""
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        known = sorted({f for e in data.get("deletions", [])
                        for f in (e.get("feature", ""), *e.get("features", ()),
                                  *e.get("with_features", ()))} - {""})
        dropped = list((data.get("profile") or {}).get("dropped", []))
    except (OSError, ValueError, AttributeError, TypeError):
        return True  # run_apply reports the broken manifest
    if feature in known:
        return True
    if feature in dropped:
        return False
    names = sorted({*known, *dropped})
    raise ProfileError(f"--feature: unknown feature {feature!r}{suggest(feature, names)} "
                       f"({manifest.name}); features with deletions: "
                       f"{', '.join(known) or 'none'}")
