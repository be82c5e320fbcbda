"""Analysis stage: a dropped feature seen from outside -- the live nodes outside it with edges
into its items, then its items by depth inside it (depth 0: items such an edge reaches, or
that no other item reaches). The HTML report draws these columns; it computes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from analyzer.analysis.features import FeatureReport
from analyzer.analysis.liveness import Liveness
from analyzer.nodes import Graph


@dataclass(frozen=True)
class FeatureColumns:
    columns: list[list[str]]  # column 0: live outside; then items by depth (at most 4)
    heads: list[str]
    touched: frozenset[str]  # items a live outside node has an edge to
    outside: frozenset[str]


def feature_columns(graph: Graph, live: Liveness, feature: FeatureReport
                    ) -> FeatureColumns:
    items = {i.node: i for i in feature.items}
    touched: set[str] = set()
    outside: set[str] = set()
    sources: set[str] = set()
    for node in items:
        preds = set(graph.predecessors(node))
        live_outside = {p for p in preds if p not in items and live.is_live(p)}
        outside |= live_outside
        if live_outside:
            touched.add(node)
        if live_outside or not any(p in items and p != node for p in preds):
            sources.add(node)
    inner = graph.subgraph(items)
    depth = dict(nx.multi_source_dijkstra_path_length(inner, sources)) if sources else {}
    for node in items:
        depth.setdefault(node, 0)
    levels = sorted(set(depth.values()))
    columns: list[list[str]] = [sorted(outside)]
    heads = ["live, outside the feature"]
    for k, lvl in enumerate(levels[:4]):
        last = k == 3 and len(levels) > 4
        columns.append(sorted(n for n, d in depth.items() if d == lvl or (last and d > lvl)))
        heads.append(f"{feature.name} items" if k == 0 else f"{k} step(s) in{'+' if last else ''}")
    for col in columns[1:]:  # blocked first, then what live code touches: a cut keeps them
        col.sort(key=lambda n: (items[n].status != "blocked", n not in touched, n))
    return FeatureColumns(columns, heads, frozenset(touched), frozenset(outside))
