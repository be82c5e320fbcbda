"""Analysis stage: which nodes are live, and the chain that makes a node live.

Live = reachable from the roots over edges liveness follows (every kind except those in
``graph.NOT_FOLLOWED``). One traversal from a virtual super-root answers the whole question;
chains come from a BFS predecessor map over the same view, so ``why`` costs no extra search.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from analyzer.graph.python import NOT_FOLLOWED
from analyzer.nodes import SUPER_ROOT, Graph


@dataclass
class Liveness:
    roots: list[str]
    live: set[str]
    parents: dict[str, str]  # BFS tree: node -> predecessor on a shortest chain from a root

    def is_live(self, node: str) -> bool:
        return node in self.live

    def chain(self, node: str) -> list[str]:
        """Shortest chain root -> ... -> node, or [] if the node is not live."""
        if node not in self.live:
            return []
        out = [node]
        while out[-1] in self.parents and self.parents[out[-1]] != SUPER_ROOT:
            out.append(self.parents[out[-1]])
        return out[::-1]


def followed_view(graph: Graph) -> Graph:
    # annotated: the stubs' overloads (any graph class) give Any for a graph of Any attributes
    view: Graph = nx.subgraph_view(graph, filter_edge=lambda u, v: graph.edges[u, v]["kind"]
                                   not in NOT_FOLLOWED)
    return view


def compute_liveness(graph: Graph, roots: list[str]) -> Liveness:
    """One BFS from a virtual super-root over the followed edges (the root's edges are added
    for the traversal and removed after it, so the graph is not copied)."""
    graph.add_edges_from((SUPER_ROOT, r) for r in roots)
    graph.add_node(SUPER_ROOT)
    try:
        for r in roots:
            graph.edges[SUPER_ROOT, r]["kind"] = "root"
        parents = dict(nx.bfs_predecessors(followed_view(graph), SUPER_ROOT))
    finally:
        graph.remove_node(SUPER_ROOT)
    live = set(parents) - {SUPER_ROOT}
    return Liveness(roots=list(roots), live=live, parents=parents)
