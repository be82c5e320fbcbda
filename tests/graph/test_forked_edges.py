"""A fresh graph may resolve its modules' edges in forked workers (``module_layer`` with
``jobs``): the graph must be the one a build in this process makes, in the same order (nodes,
each node's successors and predecessors), with the same records kept for the next build."""

from __future__ import annotations

import pytest

import analyzer.graph.python as graph_python
from analyzer.decide.options import GraphOptions
from analyzer.graph.python import EdgeMemo, build_python_graph
from analyzer.nodes import pred_dicts, succ_dicts
from tests.helpers import module_index, same_python_graph

TREE = {
    "pkg/__init__.py": "from pkg.a import fa\n",
    # externals (nodes the edges make: ``ext:numpy`` by two modules)
    "pkg/a.py": "import numpy\n\n\ndef fa():\n    return numpy.zeros(1)\n",
    "pkg/b.py": "import numpy as np\nimport torch\n\n\ndef fb():\n    return np.ones(1), torch\n",
    # a re-export, resolved through by pkg.user
    "pkg/reexp.py": "from pkg.a import fa\n",
    # a class whose method only code calls (gated: ``attr:forward`` made by the readers)
    "pkg/layer.py": ("class Layer:\n    def forward(self, x):\n        return x\n\n"
                     "    def extra(self):\n        return 0\n"),
    "pkg/user.py": ("from pkg.reexp import fa\nfrom pkg.layer import Layer\n"
                    "from pkg.missing import nothing\n\n\n"
                    "def run():\n    return Layer().forward(fa()), nothing\n"),
    "pkg/other.py": ("from pkg.b import fb\n\n\ndef go(layer):\n"
                     "    return layer.forward(fb())\n"),
    # lines folded away: their import makes no edge
    "pkg/sel.py": "import os\nif os.environ.get('X'):\n    from pkg.b import fb\n",
}


def _ordered(graph):
    """The graph's dicts in their order: nodes, then each node's successors and
    predecessors."""
    succ, pred = succ_dicts(graph), pred_dicts(graph)
    return (list(graph.nodes(data=True)),
            [(n, list(succ[n].items())) for n in graph],
            [(n, list(pred[n].items())) for n in graph])


@pytest.mark.parametrize("dead", [{}, {"pkg.sel": [(3, 3)]}])
def test_edges_resolved_in_workers_make_the_same_graph(tmp_path, monkeypatch, dead):
    base = module_index(tmp_path, TREE)
    index = base.with_dead_lines(dead)
    options = GraphOptions(dead_lines={m: tuple(r) for m, r in dead.items()})
    here_memo, forked_memo = EdgeMemo(), EdgeMemo()
    here = build_python_graph(index, options, here_memo, jobs=1)
    monkeypatch.setattr(graph_python, "_FORK_MIN", 1)  # (the tree is small)
    calls: list[int] = []
    real = graph_python.forked_map

    def counting(fn, items, jobs):
        calls.append(len(items))
        return real(fn, items, jobs)

    monkeypatch.setattr(graph_python, "forked_map", counting)
    forked = build_python_graph(index, options, forked_memo, jobs=2)
    assert calls == [len(index.modules)]  # every module resolved by the workers
    same_python_graph(here, forked)
    assert _ordered(here.graph) == _ordered(forked.graph)
    assert here.graph.has_edge("py:pkg.a", "ext:numpy")
    assert here.graph.has_edge("py:pkg.user:run", "py:pkg.a:fa")
    # the import of a module the tree lacks, and the name read through it
    assert sorted(u["name"] for u in here.unresolved) == ["pkg.missing", "pkg.missing.nothing"]
    assert here.graph.has_edge("py:pkg.sel", "py:pkg.b") == (not dead)
    # the records kept are the same: the next build replays them alike
    assert forked_memo.computed == here_memo.computed == len(index.modules)
    for name, (local, record) in here_memo.records.items():
        other_local, other = forked_memo.records[name]
        assert other_local == local
        assert other.ops == record.ops and other.decisions == record.decisions
        assert other.reexports == record.reexports and other.orders == record.orders
        assert other.consulted == record.consulted and other.owned == record.owned
    again = build_python_graph(index, options, forked_memo, jobs=2)
    assert forked_memo.replayed == len(index.modules)
    assert _ordered(again.graph) == _ordered(here.graph)


def test_a_few_modules_are_resolved_here(tmp_path, monkeypatch):
    index = module_index(tmp_path, TREE)

    def refuse(*_args, **_kw):
        raise AssertionError("no pool for a few modules")

    monkeypatch.setattr(graph_python, "forked_map", refuse)
    built = build_python_graph(index, GraphOptions(), EdgeMemo(), jobs=2)
    assert built.graph.has_edge("py:pkg.a", "ext:numpy")
