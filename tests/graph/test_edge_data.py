"""``analyzer.nodes.EdgeData``, an edge's attributes in a third of a dict's memory, reads as
the dict it stands for: every mapping operation the stages and networkx use gives a dict's
answer, a key it does not hold is missing (not an attribute of the class), it pickles back to
itself, and a graph holding it copies and exports as with dicts. ``add_nodes`` shares the
node dicts it is given and never writes into one."""

from __future__ import annotations

import pickle

import networkx as nx
import pytest

from analyzer.graph.python import add_nodes
from analyzer.nodes import EdgeData, add_edges

AS_DICT = {"kind": "import", "file": "pkg/a.py", "line": 412}


def test_reads_as_the_dict_it_stands_for() -> None:
    data = EdgeData("import", "pkg/a.py", 412)
    assert data == AS_DICT and data != {**AS_DICT, "line": 3}
    assert AS_DICT == data  # noqa: SIM300 (the comparison from the dict's side)
    assert data["kind"] == "import" and data.get("line") == 412
    assert dict(data) == AS_DICT and {**data} == AS_DICT and data.copy() == AS_DICT
    assert list(data.items()) == list(AS_DICT.items()) and len(data) == 3
    assert "file" in data and "gate" not in data and "get" not in data
    assert data.get("gate") is None and data.get("get", 7) == 7
    with pytest.raises(KeyError):
        data["copy"]
    assert pickle.loads(pickle.dumps(data)) == data


def test_a_graph_of_them_copies_and_merges_as_with_dicts() -> None:
    graph: nx.DiGraph[str] = nx.DiGraph()
    data = EdgeData("import", "pkg/a.py", 412)
    add_edges(graph, [("a", "b", data), ("a", "c", data)])
    assert graph.edges["a", "b"] is data
    copied = graph.copy()
    assert copied.edges["a", "b"] == AS_DICT and type(copied.edges["a", "b"]) is dict
    # a repeated edge gets a merged dict; the shared data stays as it was
    add_edges(graph, [("a", "b", {"line": 3})])
    assert graph.edges["a", "b"] == {**AS_DICT, "line": 3} and data["line"] == 412
    assert list(graph.edges(data="kind")) == [("a", "b", "import"), ("a", "c", "import")]


def test_add_nodes_shares_the_dicts_given_and_never_writes_into_one() -> None:
    graph: nx.DiGraph[str] = nx.DiGraph()
    first = {"kind": "module", "path": "a.py"}
    add_nodes(graph, [("py:a", first)])
    assert graph.nodes["py:a"] is first
    add_nodes(graph, [("py:a", {"kind": "extension", "target": "t"})])
    assert graph.nodes["py:a"] == {"kind": "extension", "path": "a.py", "target": "t"}
    assert first == {"kind": "module", "path": "a.py"}
