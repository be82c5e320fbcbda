"""Report stage, HTML: one self-contained page rendered from ``templates/report.html.j2``.

Autoescaped Jinja; no network, no CDN. The view model is built here from the ScanResult and
the manifest totals, so the template only lays things out.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import jinja2

from analyzer.extract.treesitter import data_dir
from analyzer.manifest import build_summary, totals
from analyzer.scan import ScanResult


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
        undefined=jinja2.StrictUndefined,
    )


def view_model(result: ScanResult) -> dict[str, Any]:
    per_file: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"removable": 0, "entries": 0, "whole": False})
    for d in result.plan.deletions:
        row = per_file[d.path]
        row["removable"] += d.lines
        row["entries"] += 1
        row["whole"] = row["whole"] or d.kind == "delete_file"
    files = []
    for path, row in sorted(per_file.items()):
        info = result.files[path]
        files.append({"path": path, "lines": info.lines, **row})
    return {
        "root": str(result.root),
        "roots": result.root_names,
        "default_roots": result.default_roots,
        "totals": totals(result),
        "files": files,
        "deletions": result.plan.deletions,
        "kept": result.plan.kept,
        "problems": result.problems,
        "unresolved": result.unresolved[:500],
        "unresolved_count": len(result.unresolved),
        "profile": result.profile.profile,
        "drops": result.profile.drops,
        "stale": result.profile.stale,
        "features": result.features,
        "decisions": result.graph.graph.get("decisions", [])[:1000],
        "build": build_summary(result),
    }


def render_html(result: ScanResult) -> str:
    return _environment().get_template("report.html.j2").render(**view_model(result))


def write_html(result: ScanResult, path: Path) -> None:
    path.write_text(render_html(result), encoding="utf-8")
