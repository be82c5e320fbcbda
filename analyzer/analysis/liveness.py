"""Analysis stage: which nodes are live, and the chain that makes a node live.

Live = reachable from the roots over edges liveness follows (every kind except those in
``graph.NOT_FOLLOWED``), a gated node (a method) only once its gate is live too. One
traversal from the roots answers the whole question;
chains come from a BFS predecessor map over the same view, so ``why`` costs no extra search.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

import networkx as nx

from analyzer.graph.python_nodes import NOT_FOLLOWED
from analyzer.nodes import SUPER_ROOT, Graph


@dataclass
class Liveness:
    roots: list[str]
    live: set[str]
    parents: dict[str, str]  # BFS tree: node -> predecessor on a shortest chain from a root
    # gate -> the gated nodes (with the node that reached each) waiting for it to be live:
    # what a traversal continued from more roots starts from
    waiting: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

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


def successors(graph: Graph) -> Mapping[str, Mapping[str, dict[str, object]]]:
    """Node -> {successor: edge attributes}: the DiGraph's own adjacency dicts (what
    networkx's traversals read; its ``adj`` view answers the same, one wrapper per access)."""
    succ = getattr(graph, "_succ", None)
    return succ if isinstance(succ, dict) else graph.adj


def node_data(graph: Graph) -> Mapping[str, dict[str, object]]:
    """Node -> its attributes: the DiGraph's own dict (what ``graph.nodes[n]`` reads through
    a view), for the loops that look up every node."""
    nodes = getattr(graph, "_node", None)
    return nodes if isinstance(nodes, dict) else graph.nodes


# graph -> (its node count and version, its gated nodes' gates): a graph is traversed by
# several rounds; gates are set when a method's node is made, or when the rounds' graph is
# patched (``analyzer.graph.rounds_graph``: its version counts the patches)
_GATES: WeakKeyDictionary[Graph, tuple[tuple[int, object], dict[str, str]]] = \
    WeakKeyDictionary()


def _gates(graph: Graph) -> dict[str, str]:
    key = (graph.number_of_nodes(), graph.graph.get("version"))
    known = _GATES.get(graph)
    if known is None or known[0] != key:
        known = _GATES[graph] = (key, {n: str(d["gate"]) for n, d in graph.nodes(data=True)
                                       if d.get("gate")})
    return known[1]


def compute_liveness(graph: Graph, roots: list[str], later: list[str] | None = None,
                     tiers: list[list[str]] | None = None) -> Liveness:
    """A BFS from the roots over the followed edges, then one from ``later`` (roots the
    soundness rounds added: kept code, retained tests), so a chain starts at a declared root
    whenever one reaches the node. A node with a ``gate`` (a method only code naming it can
    call) is entered only once its gate node is live too: reached through its class while
    nothing live reads its name, it waits for the first read."""
    parents: dict[str, str] = {}
    waiting: defaultdict[str, list[tuple[str, str]]] = defaultdict(list)
    # ``tiers``: ``roots`` split by preference (the roots the user named, the profile's entry
    # points, other declared roots, the rest): each tier's BFS completes before the next, so
    # a chain starts at the most preferred root that reaches the node
    for batch in (*(tiers or [roots]), later or []):
        _traverse(graph, batch, parents, waiting)
    return Liveness(roots=[*roots, *(later or [])], live=set(parents), parents=parents,
                    waiting=dict(waiting))


def extend_liveness(graph: Graph, liveness: Liveness, more: list[str]) -> Liveness:
    """``liveness`` (of ``graph``) with ``more`` roots added, continuing its traversal instead
    of starting again: the live set is the one :func:`compute_liveness` gives with ``more``
    appended to its later roots (reachability does not depend on the order), and every
    chain it had stays. ``liveness`` itself is not changed."""
    parents = dict(liveness.parents)
    waiting: defaultdict[str, list[tuple[str, str]]] = defaultdict(list)
    for gate, nodes in liveness.waiting.items():
        waiting[gate] = list(nodes)
    fresh = [r for r in more if r not in parents]
    _traverse(graph, fresh, parents, waiting)
    return Liveness(roots=[*liveness.roots, *fresh], live=set(parents), parents=parents,
                    waiting={g: n for g, n in waiting.items() if n})


def _traverse(graph: Graph, batch: list[str], parents: dict[str, str],
              waiting: defaultdict[str, list[tuple[str, str]]]) -> None:
    """One BFS from ``batch``, entering what ``parents`` does not hold yet."""
    gates = _gates(graph)
    adj = successors(graph)
    queue: deque[str] = deque()
    for r in batch:
        if r in graph and r not in parents:
            parents[r] = SUPER_ROOT
            queue.append(r)
    while queue:
        u = queue.popleft()
        for v, data in adj[u].items():
            if v in parents or data["kind"] in NOT_FOLLOWED:
                continue
            gate = gates.get(v)
            if gate is not None and gate not in parents:
                waiting[gate].append((v, u))
                continue
            parents[v] = u
            queue.append(v)
        for v, via in waiting.pop(u, ()):
            if v not in parents:
                parents[v] = via
                queue.append(v)
