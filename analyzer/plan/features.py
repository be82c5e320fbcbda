"""Plan stage: name the dropped feature each deletion belongs to (its file, symbol or the CMake
target/fetch whose block it removes)."""

from __future__ import annotations

import dataclasses

from analyzer.analysis.features import feature_of_node
from analyzer.config.globs import identifier_matches, path_matches
from analyzer.config.types import Feature
from analyzer.model import Deletion, Plan
from analyzer.nodes import Graph


def attribute_deletions(plan: Plan, graph: Graph, features: list[Feature]) -> None:
    """Name the feature of every deletion whose file or symbol belongs to a dropped one."""
    if not features:
        return
    anchors = [(data["path"], data.get("start_line", 0), name)  # targets and fetches
               for node, data in graph.nodes(data=True)
               if data.get("kind") in ("target", "fetch")
               and (name := feature_of_node(data, features))]
    out: list[Deletion] = []
    for d in plan.deletions:
        name = None
        for f in features:
            if path_matches(d.path, f.paths) or (d.symbol and (
                    path_matches(d.symbol, f.paths)
                    or identifier_matches(d.symbol.rsplit(":", 1)[-1], f.identifiers))):
                name = f.name
                break
        if name is None and d.category == "cmake-block":
            name = next((n for p, line, n in anchors if p == d.path
                         and (d.start_line or 0) <= line <= (d.end_line or 0)), None)
        out.append(dataclasses.replace(d, feature=name or d.feature))
    plan.deletions[:] = out
