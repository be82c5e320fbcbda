"""Report stage, HTML: one self-contained page rendered from ``templates/report.html.j2``.

Autoescaped Jinja; no network, no CDN; inline CSS and JS. The view model is built here from
the ScanResult and the manifest totals, so the template only lays things out:

- summary cards (overall, per dropped feature, before/after totals);
- one row per deletion (data attributes drive the page's sort and filters);
- per-file source excerpts with the dead ranges marked, cut from the bytes the scan read
  (``ScanResult.sources``; nothing is read again) and only an excerpt is kept (the deleted
  ranges with a little context, at most ``MAX_EXCERPT`` lines per file; a whole-file
  deletion shows its head). A result without sources reads the file; one whose sha256 no
  longer matches the scan is flagged as changed;
- the live BFS tree for the "why is this kept" lookup (``analyzer.outputs.why_index``, the
  form the manifest records for ``why --manifest``), from which the page rebuilds exactly the
  chain :func:`analyzer.analysis.why.chain_steps` prints, for every live module, class,
  function, method, target, file and op;
- per dropped feature, a column layout (inline SVG coordinates) of its items and the nodes
  outside it that touch them.

Page data are embedded as JSON through Jinja's ``tojson`` (``<``, ``>``, ``&`` escaped), and
the page's script writes them with ``textContent`` only.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from analyzer.graph.python_nodes import NOT_FOLLOWED
from analyzer.model import Deletion, is_behaviour_decision
from analyzer.nodes import describe
from analyzer.outputs.manifest import (
    build_summary,
    feature_part,
    feature_tu_archs,
    feature_tus,
    shared_prefix,
    taken_along,
    totals,
    why_section,
)
from analyzer.util.data import data_dir
from analyzer.util.words import PAIRS_LEGEND, num, pairs

if TYPE_CHECKING:
    from analyzer.result import Blocker, FeatureReport, ScanResult

MAX_EXCERPT = 200  # source lines kept per file
CONTEXT = 2  # lines shown around a deleted range
WHOLE_HEAD = 30  # lines shown of a file deleted whole
LONG_RANGE = (25, 5)  # a longer range shows its first and last lines only
MAX_LINE_CHARS = 300
MAX_COLUMN = 30  # boxes per column of a feature's dependency view
BOX_W, BOX_H, ROW_H, COL_GAP, PAD, GROUP_H = 200, 20, 26, 90, 24, 16


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
        undefined=jinja2.StrictUndefined,
    )
    env.filters["num"] = num  # figures shown as the terminal shows them: 4,105
    return env


def view_model(result: ScanResult) -> dict[str, Any]:
    tot = totals(result)
    deletions = result.plan.deletions
    per_file: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"removable": 0, "entries": 0, "whole": False})
    for d in deletions:
        row = per_file[d.path]
        row["removable"] += d.lines
        row["entries"] += 1
        row["whole"] = row["whole"] or d.kind == "delete_file"
    files = [{"path": path, "lines": result.files[path].lines, **row}
             for path, row in sorted(per_file.items())]
    share, _other = feature_part(result)
    in_share = {id(d) for d in share}
    along = taken_along(result)
    return {
        "root": str(result.root),
        "roots": result.root_names,
        "default_roots": result.default_roots,
        "totals": tot,
        "feature_totals": feature_totals(result),
        "pairs_legend": PAIRS_LEGEND,
        "before_after": before_after(result, tot),
        "files": files,
        "deletions": deletions,
        # (deletion, "features" | "other"): the dropped features' share or other dead code
        "deletion_rows": [(d, "features" if id(d) in in_share else "other")
                          for d in deletions],
        "scope": result.options.scope,
        "along": {"files": sum(1 for d in along if d.kind == "delete_file"),
                  "lines": sum(d.lines for d in along), "deletions": len(along)},
        "feature_names": sorted({d.feature for d in deletions if d.feature}),
        "categories": sorted({d.category for d in deletions}),
        "kept": result.plan.kept,
        "kept_by_tests": [{"path": p, "test": t, "lines": result.files[p].lines
                           if p in result.files else 0}
                          for p, t in result.kept_by_tests.items()],
        "decided": [d for d in result.plan.deletions if is_behaviour_decision(d)],
        "problems": result.problems,
        "unresolved": result.unresolved[:500],
        "unresolved_count": len(result.unresolved),
        "profile": result.profile.profile,
        "drops": result.profile.drops,
        "stale": result.profile.stale,
        "anchors": result.anchors,
        "features": result.features,
        "blockers": result.blockers,
        # each feature's blocked chains, a shared prefix shown once
        "chains": {f.name: shared_prefix([i.chain for i in f.blocked]) for f in result.features},
        "decisions": result.graph.graph.get("decisions", [])[:1000],
        "build": build_summary(result),
        "file_data": file_excerpts(result),
        "why_data": why_data(result),
        "feature_graphs": [feature_graph(result, f) for f in result.features],
    }


def feature_totals(result: ScanResult) -> list[dict[str, Any]]:
    """Per dropped feature: files, lines, CUDA translation units, fetched repositories."""
    summary = result.native_summary
    dead_fetches = set(summary.dead_fetches)
    out = []
    for f in result.features:
        tus = feature_tus(result, f.name)
        arch_pairs, arch_unknown = feature_tu_archs(result, f.name)
        fetches = sorted(i.node.split(":", 1)[1] for i in f.items if i.kind == "fetch"
                         and i.node.split(":", 1)[1] in dead_fetches)
        anchored = next((a for a in result.anchors if a.feature == f.name), None)
        out.append({"name": f.name, "description": f.description,
                    "files": f.files_removable, "lines": f.lines_removable,
                    "tus": tus, "tu_archs": pairs(arch_pairs, arch_unknown),
                    "fetches": fetches, "items": len(f.removable),
                    "blocked": len(f.blocked),
                    "anchors": f"{anchored.matched}/{anchored.total}" if anchored else "0/0",
                    "stale": ", ".join(str(s) for s in anchored.stale) if anchored else "",
                    "top_blocker": top_blocker(result.blockers.get(f.name, [])),
                    "frees": result.freeing[f.name].text() if f.name in result.freeing
                    else ""})
    return out


def top_blocker(blockers: list[Blocker]) -> dict[str, Any] | None:
    """The blocker to change first (they come ordered: a default that selects a dropped key
    and frees something, then the places in live code by what each frees): where, the edit,
    and what changing it alone frees."""
    b = next((b for b in blockers if b.frees), None) or next(
        (b for b in blockers if b.group != "test"), None)
    if b is None:
        return None
    where = f"{b.file}:{b.line}" if b.file and b.line else b.file or "the build"
    edit = b.edit.split(" (it selects")[0] if b.group == "default" else b.edit.split(" at ")[0]
    return {"where": where, "edit": edit, "frees": len(b.frees), "path": b.file}


def before_after(result: ScanResult, tot: dict[str, int]) -> list[dict[str, Any]]:
    lang = {p: f.language for p, f in result.files.items()}
    whole = [d for d in result.plan.deletions if d.kind == "delete_file"]
    py_files = sum(1 for d in whole if lang.get(d.path) == "python")
    py_lines = sum(d.lines for d in result.plan.deletions if lang.get(d.path) == "python")
    native = sum(1 for d in whole if lang.get(d.path) == "cuda")
    cmake = sum(1 for d in whole if lang.get(d.path) == "cmake")
    rows = [("python_files", "Python files", tot["python_files"], py_files),
            ("python_lines", "Python lines", tot["python_lines"], py_lines),
            ("native_files", "C/C++/CUDA files", tot["native_files"], native),
            ("cmake_files", "CMake files", tot["cmake_files"], cmake),
            ("targets", "build targets", tot["targets"], tot["dead_targets"])]
    return [{"key": k, "label": label, "before": b, "after": b - gone, "removed": gone}
            for k, label, b, gone in rows]


def _dead_lines(ds: list[Deletion]) -> list[tuple[int, int]]:
    spans = sorted((d.start_line, d.end_line or d.start_line) for d in ds
                   if d.start_line is not None)
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def _excerpt(lines: list[str], ds: list[Deletion], marks: frozenset[int] = frozenset()
             ) -> tuple[list[list[Any]], bool]:
    """Rows ``[line number, text, dead]`` (dead 2: a blocker's line, in ``marks``) and gap
    rows ``[None, note, 0]``; True if cut."""
    n = len(lines)
    shown: dict[int, int] = {}  # line -> dead flag
    for m in marks:
        for i in range(max(1, m - CONTEXT), min(n, m + CONTEXT) + 1):
            shown.setdefault(i, 0)
    if any(d.kind == "delete_file" for d in ds):
        for i in range(1, min(n, WHOLE_HEAD) + 1):
            shown[i] = 1
    else:
        head, tail = LONG_RANGE
        for s, e in _dead_lines(ds):
            parts = [(s, e)] if e - s + 1 <= head + tail + 5 else [(s, s + head - 1),
                                                                   (e - tail + 1, e)]
            for a, b in parts:
                for i in range(max(1, a - CONTEXT), min(n, b + CONTEXT) + 1):
                    shown.setdefault(i, 0)
                for i in range(a, min(n, b) + 1):
                    shown[i] = 1
    rows: list[list[Any]] = []
    prev = 0
    cut = False
    for i in sorted(shown):
        if len(rows) >= MAX_EXCERPT:
            cut = True
            break
        if i > prev + 1:
            rows.append([None, f"… {i - prev - 1} line(s) not shown", 0])
        rows.append([i, lines[i - 1][:MAX_LINE_CHARS], shown[i]])
        prev = i
    if not cut and prev < n:
        rows.append([None, f"… {n - prev} line(s) not shown", 0])
    for row in rows:
        if row[0] in marks and not row[2]:
            row[2] = 2
    return rows, cut


def file_excerpts(result: ScanResult) -> dict[str, dict[str, Any]]:
    """path -> panel data; each file with deletions is read once, excerpts only."""
    by_file: dict[str, list[Deletion]] = defaultdict(list)
    for d in result.plan.deletions:
        by_file[d.path].append(d)
    marks: dict[str, set[int]] = defaultdict(set)  # blocker lines, marked in the panel
    for blockers in result.blockers.values():
        for b in blockers:
            if b.file and b.line:
                marks[b.file].add(b.line)
    out: dict[str, dict[str, Any]] = {}
    for path, ds in sorted(by_file.items()):
        info = result.files.get(path)
        entry: dict[str, Any] = {
            "whole": any(d.kind == "delete_file" for d in ds),
            "lines": info.lines if info else 0,
            "dead": [list(r) for r in _dead_lines(ds)],
            "deletions": [[d.kind, d.category, d.start_line, d.end_line, d.lines, d.reason]
                          for d in ds],
            "rows": [], "changed": False, "cut": False, "error": ""}
        data = result.sources.get(path)  # held since the scan: no re-read
        if data is None:
            try:
                data = (result.root / path).read_bytes()
            except OSError as exc:
                entry["error"] = f"source unavailable: {exc.strerror or exc}"
                out[path] = entry
                continue
        entry["changed"] = info is not None and hashlib.sha256(data).hexdigest() != info.sha256
        text = data.decode("utf-8", errors="replace").split("\n")
        entry["rows"], entry["cut"] = _excerpt([t.rstrip("\r") for t in text], ds,
                                               frozenset(marks.get(path, ())))
        out[path] = entry
    _blocker_excerpts(result, out, marks)
    return out


def _blocker_excerpts(result: ScanResult, out: dict[str, dict[str, Any]],
                      lines_of: dict[str, set[int]]) -> None:
    """Files where live code enters a dropped feature and nothing is deleted: the lines around
    each blocker, the blocker's own line flagged 2 (the panel marks it)."""
    for path, marks in sorted(lines_of.items()):
        if path in out:
            continue
        data = result.sources.get(path)
        info = result.files.get(path)
        entry: dict[str, Any] = {"whole": False, "lines": info.lines if info else 0, "dead": [],
                                 "deletions": [], "rows": [], "changed": False, "cut": False,
                                 "error": "" if data is not None else "source unavailable"}
        if data is not None:
            text = data.decode("utf-8", errors="replace").split("\n")
            shown = sorted({i for m in marks for i in range(max(1, m - CONTEXT),
                                                            min(len(text), m + CONTEXT) + 1)})
            prev = 0
            for i in shown:
                if i > prev + 1:
                    entry["rows"].append([None, f"… {i - prev - 1} line(s) not shown", 0])
                entry["rows"].append([i, text[i - 1].rstrip("\r")[:MAX_LINE_CHARS],
                                      2 if i in marks else 0])
                prev = i
        out[path] = entry


def _search_key(node: str, data: dict[str, Any]) -> str:
    kind = data.get("kind")
    if kind in ("native_file", "cmake_file"):
        return str(data.get("path", node))
    return node.split(":", 1)[1] if ":" in node else node


def why_data(result: ScanResult) -> dict[str, Any]:
    """What the why-search reads: the manifest's ``why`` section -- the live tree
    (``analyzer.outputs.why_index``: every live module, class, function, method, target,
    file and op, with each root's reason) and the modules of the files the plan deletes."""
    return why_section(result)


def _group_and_label(node: str, data: dict[str, Any]) -> tuple[str, str]:
    """The group a node is drawn under in the dependency view (its module; a file's folder;
    "CMake targets", "torch ops", ...) and its whole name within it."""
    if node.startswith("py:"):
        module, _, name = node[3:].partition(":")
        return module, name or "(module)"
    key = _search_key(node, data)
    if data.get("kind") in ("native_file", "cmake_file"):
        folder, _, name = key.rpartition("/")
        return folder or ".", name
    kinds = {"target": "CMake targets", "fetch": "fetched repositories", "op": "torch ops",
             "ext": "extension modules", "cmake": "CMake"}
    return kinds.get(node.split(":", 1)[0], "other"), key


CHAR_W = 6.7  # px per character of the boxes' 11px monospace font


def feature_graph(result: ScanResult, feature: FeatureReport) -> dict[str, Any]:
    """Columns: the live nodes outside the feature with edges into its items, then the items
    by depth inside the feature (depth 0: items such an edge reaches, or that no other item
    reaches). Within a column the nodes are grouped by module (a caption with the module's
    whole name, then each node's whole name within it), so edges from one module leave
    together. Edges that keep an item live are marked ``blocking``."""
    graph, live = result.graph, result.liveness
    items = {i.node: i for i in feature.items}
    layers = result.feature_columns[feature.name]
    columns, heads, outside = layers.columns, layers.heads, layers.outside
    pos: dict[str, tuple[float, float]] = {}
    widths: dict[str, float] = {}
    boxes: list[dict[str, Any]] = []
    groups: list[dict[str, Any]] = []
    more: list[dict[str, Any]] = []
    col_x: list[float] = []
    x = float(PAD)
    bottom = PAD + 20.0
    for col in columns:
        shown = [(*_group_and_label(n, graph.nodes[n]), n) for n in col[:MAX_COLUMN]]
        shown.sort(key=lambda t: (t[0], t[1]))
        width = max([BOX_W, *(CHAR_W * len(label) + 14 for _, label, _ in shown),
                     *(CHAR_W * len(group) for group, _, _ in shown)])
        col_x.append(x)
        y = PAD + 20.0
        current = None
        for group, label, node in shown:
            if group != current:
                current = group
                groups.append({"x": x, "y": y + 11, "text": group})
                y += GROUP_H
            pos[node] = (x, y)
            widths[node] = width
            status = items[node].status if node in items else "outside"
            boxes.append({"x": x, "y": y, "w": round(width), "label": label, "title":
                          f"{describe(graph, node)} — {status}", "status": status,
                          "key": _search_key(node, graph.nodes[node])})
            y += ROW_H
        if len(col) > MAX_COLUMN:
            more.append({"x": x, "y": y + 12, "text": f"+ {len(col) - MAX_COLUMN} more"})
            y += 30
        bottom = max(bottom, y)
        x += width + COL_GAP
    if not outside:
        more.append({"x": PAD, "y": PAD + 34, "text": "nothing live reaches these items"})
        bottom = max(bottom, PAD + 40.0)
    edges: list[dict[str, Any]] = []
    drawn = [(u, v, graph.edges[u, v]) for v in pos if v in items
             for u in graph.predecessors(v) if u in pos]
    for u, v, data in drawn:
        if u in items and pos[u][0] >= pos[v][0]:
            continue
        (x1, y1), (x2, y2) = pos[u], pos[v]
        x1, y1, x2, y2 = x1 + widths[u], y1 + BOX_H / 2, x2, y2 + BOX_H / 2
        mid = (x1 + x2) / 2
        blocking = live.is_live(u) and live.is_live(v) and data["kind"] not in NOT_FOLLOWED
        edges.append({"d": f"M{x1:.0f},{y1:.0f} C{mid:.0f},{y1:.0f} {mid:.0f},{y2:.0f} "
                           f"{x2:.0f},{y2:.0f}", "kind": data["kind"], "blocking": blocking,
                      "title": f"{data['kind']} at {data.get('file') or 'the build'}"
                               f"{':' + str(data['line']) if data.get('line') else ''}"})
    return {"name": feature.name, "boxes": boxes, "edges": edges, "more": more,
            "groups": groups,
            "heads": [{"x": col_x[i] if i < len(col_x) else PAD, "text": h}
                      for i, h in enumerate(heads)],
            "width": round(x - COL_GAP + PAD) if columns else PAD * 2,
            "height": round(bottom + PAD),
            "box_h": BOX_H,
            "outside": len(outside), "n_items": len(items),
            "blocking": sum(1 for e in edges if e["blocking"])}


def render_html(result: ScanResult) -> str:
    return "".join(html_pieces(result))


def html_pieces(result: ScanResult) -> Iterator[str]:
    """The report's text, piece by piece as the template makes it (the output stage encodes
    them as they come: the report of a large tree is ~12 MB)."""
    return _environment().get_template("report.html.j2").generate(**view_model(result))


def write_html(result: ScanResult, path: Path) -> None:
    path.write_text(render_html(result), encoding="utf-8")
