"""Liveness continued from more roots (``extend_liveness``) gives the live set a traversal
from scratch gives, gates included, and keeps every chain it had."""

from __future__ import annotations

import networkx as nx

from analyzer.analysis.liveness import compute_liveness, extend_liveness


def _graph() -> nx.DiGraph:
    g = nx.DiGraph()
    # root -> a -> Cls; Cls -> Cls.run (a method gated on the name "run" being read)
    g.add_edge("root", "a", kind="import")
    g.add_edge("a", "Cls", kind="reference")
    g.add_edge("Cls", "Cls.run", kind="member")
    g.nodes["Cls.run"]["gate"] = "name:run"
    g.add_edge("Cls.run", "helper", kind="reference")
    # kept later: b reads the name run, which opens the gate; c is on its own
    g.add_edge("b", "name:run", kind="reference")
    g.add_edge("c", "d", kind="import")
    g.add_edge("d", "type_only", kind="type_checking")  # never followed
    return g


def test_extending_equals_starting_again() -> None:
    g = _graph()
    base = compute_liveness(g, ["root"])
    assert base.live == {"root", "a", "Cls"}  # Cls.run waits for its gate
    grown = extend_liveness(g, base, ["b"])
    assert grown.live == compute_liveness(g, ["root"], ["b"]).live \
        == {"root", "a", "Cls", "b", "name:run", "Cls.run", "helper"}
    assert grown.chain("helper") == ["root", "a", "Cls", "Cls.run", "helper"]
    more = extend_liveness(g, grown, ["c", "root"])
    assert more.live == compute_liveness(g, ["root"], ["b", "c"]).live
    assert "type_only" not in more.live
    # the liveness extended is a value: unchanged
    assert base.live == {"root", "a", "Cls"} and base.waiting == {"name:run": [("Cls.run",
                                                                                "Cls")]}
