"""Analysis: a dropped feature seen from outside (the report's feature view), on a small
hand-built graph."""

from __future__ import annotations

import networkx as nx

from analyzer.analysis.feature_columns import feature_columns
from analyzer.analysis.features import FeatureItem, FeatureReport
from analyzer.analysis.liveness import compute_liveness


def test_columns_are_the_live_outside_then_the_items_by_depth() -> None:
    # root -> user -> a (feature) -> b (feature) -> c (feature); d (feature) alone
    g: nx.DiGraph[str] = nx.DiGraph()
    for u, v in [("root", "user"), ("user", "a"), ("a", "b"), ("b", "c")]:
        g.add_edge(u, v, kind="import", file="x.py", line=1)
    g.add_node("d")
    live = compute_liveness(g, ["root"])
    items = [FeatureItem("f", n, "module", n, "blocked" if n in ("a", "b", "c") else "removable")
             for n in ("a", "b", "c", "d")]
    cols = feature_columns(g, live, FeatureReport("f", "", items))
    # depth 0: a (reached from outside) and d (nothing else reaches it); then b; then c
    assert cols.columns == [["user"], ["a", "d"], ["b"], ["c"]]
    assert cols.heads == ["live, outside the feature", "f items", "1 step(s) in",
                          "2 step(s) in"]
    assert cols.touched == frozenset({"a"}) and cols.outside == frozenset({"user"})
