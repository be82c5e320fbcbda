"""Pipeline, after the plan: the scope of a scan (``--scope features``).

``--scope all`` (the default) plans every deletion. ``--scope features`` plans only what the
dropped features take: the deletions that go once every dropped feature is applied
(``analyzer.model.goes_with``) -- the features' own code, their knock-ons, and dead code
that goes with them. That share is what the soundness refinement of
``analyzer.plan.feature_sets`` checked on its own, so it is sound; other dead code (other
models, unused helpers) stays. The build summary follows the
deletions: a dead target, fetched repository or op counts when a deletion of the share
removes the line that declares it.
"""

from __future__ import annotations

import dataclasses

from analyzer.graph.native import is_tu
from analyzer.model import Deletion, Plan, goes_with
from analyzer.nodes import Graph, fetch_node, target_node
from analyzer.plan.native import NativeSummary


def feature_share(deletions: list[Deletion], dropped: frozenset[str]) -> list[Deletion]:
    """The deletions that go with the dropped features (all of them applied)."""
    return [d for d in deletions if goes_with(d.features, d.with_features, dropped, d.after)]


def scope_to_features(plan: Plan, summary: NativeSummary, graph: Graph,
                      dropped: frozenset[str]) -> NativeSummary:
    """Cut ``plan`` to the dropped features' share (in place); the build summary of it."""
    plan.deletions[:] = feature_share(plan.deletions, dropped)
    whole = {d.path for d in plan.deletions if d.kind == "delete_file"}
    ranges: dict[str, list[tuple[int, int]]] = {}
    for d in plan.deletions:
        if d.start_line is not None:
            ranges.setdefault(d.path, []).append((d.start_line, d.end_line or d.start_line))

    def removed(node: str) -> bool:
        data = graph.nodes[node] if node in graph else {}
        path, line = str(data.get("path", "")), int(data.get("start_line") or 0)
        return path in whole or any(s <= line <= e for s, e in ranges.get(path, ()))

    targets = [t for t in summary.dead_targets if removed(target_node(t.name))]
    tus = sum(t.tus_fetched for t in targets) + sum(1 for p in whole if is_tu(p))
    return dataclasses.replace(
        summary, dead_targets=targets,
        dead_fetches=[f for f in summary.dead_fetches if removed(fetch_node(f))],
        dead_ops=[o for o in summary.dead_ops if removed(f"op:{o}")],
        tus_removed=tus)
