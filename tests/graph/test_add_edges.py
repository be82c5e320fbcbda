"""``analyzer.nodes.add_edges`` builds the graph networkx's ``add_edges_from`` builds:
the same nodes in the same order, the same successors and predecessors in the same order, the
same attributes (a repeated edge updates them). The dicts given become the edges' own (a
module's record and every graph replaying it share them), and none is ever written to: a
repeated edge gets a merged copy, so does ``put_edge`` (every other edge a graph gets), and the
record given stays as it was."""

from __future__ import annotations

import random

import networkx as nx

from analyzer.nodes import add_edges, put_edge


def _triples(seed: int) -> list[tuple[str, str, dict[str, object]]]:
    rng = random.Random(seed)
    names = [f"n{i}" for i in range(12)]
    return [(rng.choice(names), rng.choice(names),
             {"kind": rng.choice(["import", "reference"]), "line": rng.randint(1, 9)})
            for _ in range(60)]


def _shape(graph: nx.DiGraph) -> tuple[object, ...]:
    return (list(graph.nodes(data=True)),
            [(u, list(graph.succ[u].items())) for u in graph],
            [(v, list(graph.pred[v].items())) for v in graph])


def test_same_graph_as_add_edges_from_with_nodes_already_there() -> None:
    for seed in range(20):
        triples = _triples(seed)
        expected: nx.DiGraph = nx.DiGraph()
        expected.add_node("n3", kind="module")
        expected.add_edges_from(triples)
        got: nx.DiGraph = nx.DiGraph()
        got.add_node("n3", kind="module")
        add_edges(got, triples)
        assert _shape(got) == _shape(expected)
        # a self-loop and a repeated edge were among them (the cases that differ most)
    assert any(u == v for u, v, _ in _triples(0))


def test_repeated_edge_updates_the_attributes_in_a_copy() -> None:
    attrs: dict[str, object] = {"kind": "import", "line": 1}
    graph: nx.DiGraph = nx.DiGraph()
    add_edges(graph, [("a", "b", attrs)])
    assert graph.succ["a"]["b"] is attrs  # shared, not copied
    add_edges(graph, [("a", "b", {"line": 2})])
    assert graph.edges["a", "b"] == {"kind": "import", "line": 2}
    assert graph.pred["b"]["a"] is graph.succ["a"]["b"]
    assert attrs == {"kind": "import", "line": 1}  # the record given is not written to
    assert list(graph.nodes) == ["a", "b"]


def test_put_edge_is_add_edge_without_writing_into_a_shared_dict() -> None:
    for seed in range(20):
        triples = _triples(seed)
        expected: nx.DiGraph = nx.DiGraph()
        expected.add_node("n3", kind="module")
        got: nx.DiGraph = nx.DiGraph()
        got.add_node("n3", kind="module")
        given = [(u, v, dict(a)) for u, v, a in triples]
        for (u, v, a), (_, _, mine) in zip(triples, given, strict=True):
            expected.add_edge(u, v, **a)
            put_edge(got, u, v, mine)
        assert _shape(got) == _shape(expected)
        assert [a for _, _, a in given] == [a for _, _, a in triples]  # none written to
