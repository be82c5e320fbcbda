"""Codemod stage, ``depgraph apply --write --commit``: one git commit per dropped feature, then
one for the other dead code -- pull-request-sized steps, each with a message that lists what
went and why (Google's Sensenmann sends dead-code deletions as reviewable changes the same way).

Reads only the manifest (the features' descriptions and blocked counts, the entries' reasons)
and git. Before anything is written, ``preflight`` refuses (``ApplyError``, nothing changed)
when ``ROOT`` is not inside a git work tree, when git has no committer identity there, or when
a file the run would touch is not tracked or has uncommitted changes (staged or not): a commit
must hold the pruning and nothing else. Each commit names exactly the files its step edited or
deleted (``git commit --only``), so other staged work is never swept in; the reverse patches and
``.depgraph-apply.json`` stay out of the commits (undo a step with ``git revert``).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from analyzer.errors import ApplyError
from analyzer.util.words import count, num

MAX_LISTED = 200  # deletions listed in one commit message; the rest is counted


def _git(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", "-C", str(root), *args], input=stdin,
                              capture_output=True, text=True, check=False)
    except OSError as exc:
        raise ApplyError(f"--commit: cannot run git: {exc.strerror or exc}") from None


def preflight(root: Path, paths: Iterable[str]) -> None:
    """ApplyError unless ``root`` is in a git work tree with a committer identity and every
    one of ``paths`` (relative to ``root``) is tracked and unchanged since the last commit."""
    inside = _git(root, "rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        raise ApplyError(f"--commit: {root} is not in a git work tree (run git init, or apply "
                         "without --commit)")
    if _git(root, "var", "GIT_COMMITTER_IDENT").returncode != 0:
        raise ApplyError("--commit: git has no committer identity here (set user.name and "
                         "user.email)")
    wanted = sorted(set(paths))
    if not wanted:
        return
    tracked = set(_git(root, "ls-files", "-z").stdout.split("\0")) - {""}
    untracked = [p for p in wanted if p not in tracked]
    if untracked:
        raise ApplyError(f"--commit: {len(untracked)} file(s) it would touch are not tracked "
                         f"by git ({_some(untracked)}); commit or remove them first")
    if _git(root, "rev-parse", "--verify", "-q", "HEAD").returncode != 0:
        changed = wanted  # no commit yet: whatever is tracked is uncommitted
    else:  # staged or not, against the last commit; paths relative to the root
        diff = _git(root, "diff", "HEAD", "--name-only", "--relative", "-z")
        dirty = set(diff.stdout.split("\0")) - {""}
        changed = [p for p in wanted if p in dirty]
    if changed:
        raise ApplyError(f"--commit: uncommitted changes to {len(changed)} file(s) it would "
                         f"touch ({_some(changed)}); commit or stash them first")


def _some(paths: list[str]) -> str:
    return ", ".join(paths[:3]) + (f", +{len(paths) - 3} more" if len(paths) > 3 else "")


def commit(root: Path, paths: list[str], message: str) -> str:
    """Commit exactly ``paths`` (edited or deleted) with ``message``; the new commit's id."""
    spec = "\0".join(sorted(set(paths))) + "\0"
    # git reads the paths on stdin: the message goes through a file in the git directory
    msg = Path(_git(root, "rev-parse", "--absolute-git-dir").stdout.strip()) / \
        "DEPGRAPH_COMMIT_MSG"
    msg.write_text(message, encoding="utf-8")
    try:
        got = _git(root, "commit", "--quiet", "--no-verify", "--only", "-F", str(msg),
                   "--pathspec-from-file=-", "--pathspec-file-nul", stdin=spec)
    finally:
        msg.unlink(missing_ok=True)
    if got.returncode != 0:
        why = (got.stderr.strip().splitlines() or ["no message"])[-1]
        raise ApplyError(f"--commit: git commit failed: {why} (the files are written; "
                         "commit them by hand)")
    return _git(root, "rev-parse", "--short", "HEAD").stdout.strip()


def share_line(manifest: dict[str, Any], feature: str, entries: list[dict[str, Any]],
               done: frozenset[str]) -> str:
    """What applying ``feature`` after the features ``done`` carries out, in the figures the
    scan shows: the lines of its share (the entries whose ``features`` hold it) it carries
    out, the other dead code it takes along (``with_features``), and the lines of its share
    that wait for another feature (an item in several shares goes with the last of them)."""
    mine = sum(int(e["lines"]) for e in entries if feature in e.get("features", ()))
    along = sum(int(e["lines"]) for e in entries if not e.get("features"))
    applied = done | {feature}
    waiting: dict[str, int] = {}
    for e in manifest.get("deletions", []):
        features = set(e.get("features", ())) | set(e.get("after", ()))
        if feature in e.get("features", ()) and not features <= applied:
            for other in sorted(features - applied):
                waiting[other] = waiting.get(other, 0) + int(e["lines"])
    text = f"{feature}: its share, {mine:,} lines"
    if along:
        text += f"; other dead code that uses it, taken along: {along:,} lines"
    if waiting:
        text += "; shared with " + ", ".join(f"{f} ({n:,} lines, going with {f})"
                                             for f, n in sorted(waiting.items()))
    return text


def message(manifest: dict[str, Any], feature: str | None, entries: list[dict[str, Any]],
            lines: int, deleted: int, edited: int, patch: Path | None,
            done: frozenset[str] = frozenset()) -> str:
    """The commit message of one step: a subject, the feature's description, what went and
    why (``MAX_LISTED`` deletions, the rest counted), what stays blocked, provenance."""
    profile = manifest.get("profile") or {}
    info: dict[str, Any] = next(
        (f for f in profile.get("features", []) if f.get("name") == feature), {})
    counts = f"{count(lines, 'line')}, {count(deleted, 'file')} deleted, {num(edited)} edited"
    if feature is not None:
        subject = f"depgraph: drop feature {feature} ({counts})"
        about = str(info.get("description") or f"The dropped feature {feature}.")
    else:
        subject = f"depgraph: remove other dead code ({counts})"
        about = ("Code the roots do not reach for other reasons than the dropped features "
                 "(models not served, unused helpers).")
    out = [subject, "", about]
    if feature is not None:
        out += ["", share_line(manifest, feature, entries, done) + "."]
    out += ["", "What went and why:"]
    for e in entries[:MAX_LISTED]:
        where = e["path"] if e.get("start_line") is None else f"{e['path']}:{e['start_line']}" \
            + (f"-{e['end_line']}" if e.get("end_line") not in (None, e["start_line"]) else "")
        out.append(f"- {where}: {e['reason']}")
    if len(entries) > MAX_LISTED:
        out.append(f"- ... and {len(entries) - MAX_LISTED} more (manifest.json)")
    blocked = info.get("blocked") or []
    if blocked:
        first = next((b["edit"] for b in info.get("blockers", [])), "")
        out += ["", f"Still blocked (kept): {len(blocked)} item(s) of {feature}"
                + (f"; first edit that frees them: {first}" if first else "")]
    tool = manifest.get("tool", {})
    roots = ", ".join(manifest.get("roots", [])) or "entry points"
    out += ["", f"Planned by depgraph {tool.get('version', '?')} from a scan of "
                f"{manifest.get('root', '?')} (roots: {roots})."]
    if patch is not None:
        out.append(f"Reverse patch: {patch.name} (or git revert this commit).")
    return "\n".join(out) + "\n"
