"""Command line, ``depgraph why --manifest OUT/manifest.json ITEM``: the answer of ``why``
from what a scan recorded, in well under a second (no scan, no graph; JSON only).

What it reads: the manifest's ``why`` section (the live tree with each root's reason, the
modules of deleted files; ``analyzer.outputs.why_index``), its deletions (reasons), the
dropped features' blocked items and blockers, and the kept entries. A live ITEM gets the
chain a scan's ``why`` prints, word for word; a root says why it is one; a blocked item ends
with the edits that free it (a default that selects a dropped key first); an item the plan
deletes gets the deletions and their reasons; a dead item kept says why. ITEM is matched as
``why`` matches it: a node id, ``pkg.mod``, ``pkg.mod:Name``, a module's short name, a file
path, a target or op name; unknown or ambiguous is exit 4 with the closest names.
"""

from __future__ import annotations

import contextlib
import difflib
from pathlib import Path
from typing import Any

from analyzer.analysis.why_answer import WhyAnswer
from analyzer.cli.verify import read_manifest
from analyzer.errors import InputError, RootError
from analyzer.outputs.why_index import LiveTree


def load(path: Path) -> dict[str, Any]:
    data = read_manifest(path)
    if not isinstance(data.get("deletions"), list):
        raise InputError(f"{path} is not a depgraph manifest")
    if not isinstance(data.get("why"), dict):
        raise InputError(f"{path} records no why data (written by an older depgraph): "
                         "re-run depgraph scan, or run depgraph why on the tree")
    return data


def _tail(key: str, q: str) -> bool:
    return key.endswith(("." + q, ":" + q, "/" + q))


def answer(path: Path, item: str, shown: int | None = 10) -> WhyAnswer:
    """The answer for ``item``; ``shown``: how many deletions of a dead item are listed
    (None: all)."""
    manifest = load(path)
    tree = LiveTree(manifest["why"])
    q = item.strip()
    root = str(manifest.get("root", ""))
    if Path(q).is_absolute() and root:
        with contextlib.suppress(ValueError):
            q = Path(q).resolve().relative_to(Path(root)).as_posix()
    live = _match_live(tree, q)
    if live is not None:
        return _live_answer(manifest, tree, live)
    dead = _dead_answer(manifest, q, shown)
    if dead is not None:
        return dead
    raise RootError(f"unknown target {item!r} in {path.name}{_suggest(tree, manifest, q)}")


def _match_live(tree: LiveTree, q: str) -> int | None:
    """The row ``q`` names (exact id, search key or path first, then a dotted tail)."""
    if q in tree.by_id:
        return tree.by_id[q]
    exact: list[int] = []
    tails: list[int] = []
    for i, row in enumerate(tree.rows):
        if row[7] != "1":
            continue
        key = tree.search_key(i)
        if key == q or (row[0].startswith("py:") and ":" not in key and tree.path(i) == q):
            exact.append(i)
        elif _tail(key, q):
            tails.append(i)
    hits = exact or tails
    if not hits:
        return None
    if len(hits) > 1:  # a module's short name over its namesakes' definitions
        modules = [i for i in hits if ":" not in tree.search_key(i)]
        hits = modules or hits
    if len(hits) > 1:
        names = ", ".join(sorted(tree.search_key(i) for i in hits)[:8])
        raise RootError(f"ambiguous target {q!r}: {len(hits)} live names match ({names})")
    return hits[0]


def _features(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    profile = manifest.get("profile") or {}
    return list(profile.get("features", []))


def _live_answer(manifest: dict[str, Any], tree: LiveTree, i: int) -> WhyAnswer:
    node = tree.rows[i][0]
    short = node.split(":", 1)[1] if ":" in node else node
    feature = next((f["name"] for f in _features(manifest)
                    if any(b.get("item") == short for b in f.get("blocked", []))), None)
    item = tree.describe(i)
    if int(tree.rows[i][3]) < 0:
        lines = [f"{item} is live: it is a root: "
                 f"{tree.root_reason(i) or 'a root of this scan'}."]
        if feature:
            lines.append(f"(blocked: it belongs to dropped feature {feature})")
        return WhyAnswer(item, "root", feature, lines, chain=[item])
    steps = tree.steps(i)
    lines = [f"{item} is live:", *steps]
    edits: list[str] = []
    if feature:
        lines.append(f"(blocked: it belongs to dropped feature {feature})")
        blockers = next(f.get("blockers", []) for f in _features(manifest)
                        if f["name"] == feature)
        edits = [b["edit"] for b in blockers if short in b.get("blocks", ())]
        if edits:
            lines.append("to free it: " + edits[0])
            lines += [f"   and: {e}" for e in edits[1:]]
    return WhyAnswer(item, "live", feature, lines, [s.strip() for s in steps], edits)


def _dead_answer(manifest: dict[str, Any], q: str, shown: int | None) -> WhyAnswer | None:
    """What the plan deletes of ``q`` (a module, a definition, a file), or keeps dead."""
    modules: dict[str, str] = manifest["why"].get("deleted_modules", {})
    module = q if q in modules else next(
        (m for m in sorted(modules) if _tail(m, q)), None)
    hits: list[dict[str, Any]] = []
    what = q
    if module is not None:
        what = f"{module} ({modules[module]})"
        hits = [d for d in manifest["deletions"] if d["path"] == modules[module]]
    else:
        hits = [d for d in manifest["deletions"]
                if d.get("symbol") == q or (d.get("symbol") and _tail(str(d["symbol"]), q))
                or (d["kind"] == "delete_file" and (d["path"] == q or _tail(d["path"], q)))]
        if hits and hits[0].get("symbol"):
            what = str(hits[0]["symbol"])
        elif hits:
            what = str(hits[0]["path"])
    if hits:
        lines = [f"{what} is dead: the plan deletes it."]
        feature = next((d["feature"] for d in hits if d.get("feature")), "")
        if feature:
            lines.append(f"It belongs to dropped feature {feature}.")
        planned = []
        for d in hits:
            where = d["path"] if d.get("start_line") is None else \
                f"{d['path']}:{d['start_line']}-{d['end_line']}"
            planned.append(f"{where}: {d['reason']}")
        lines += [f"  {p}" for p in planned[:shown]]
        if shown is not None and len(hits) > shown:
            lines.append(f"  ... and {len(hits) - shown} more deletions of it (-v lists "
                         "them)")
        return WhyAnswer(what, "dead", feature or None, lines, deletions=planned)
    kept = [k for k in (manifest.get("profile") or {}).get("kept", [])
            if k.get("what") == q or _tail(str(k.get("what", "")), q) or k.get("path") == q]
    if kept:
        k = kept[0]
        return WhyAnswer(str(k["what"]), "kept", None, [
            f"{k['what']} is dead but kept ({k['path']}:{k['line']}): {k['reason']}"])
    return None


def _suggest(tree: LiveTree, manifest: dict[str, Any], q: str) -> str:
    last = q.replace(":", ".").replace("/", ".").split(".")[-1]
    keys = {tree.search_key(i) for i, r in enumerate(tree.rows) if r[7] == "1"}
    keys |= set(manifest["why"].get("deleted_modules", {}))
    tails = {k.replace(":", ".").replace("/", ".").split(".")[-1]: k for k in keys}
    close = difflib.get_close_matches(last, [t for t in tails if t[:2] == last[:2]], n=5,
                                      cutoff=0.6)
    names = [tails[c] for c in close]
    return f"; did you mean: {', '.join(names)}" if names else "; no similar name found"
