"""What a test or script file uses (``plan.python._used``, read of every peripheral file each
round) is kept per module in a rounds' graph until a patch swaps that module's edges; what
the layers above the Python graph add (profile hints, ops) is read each time."""

from __future__ import annotations

from analyzer.graph.python import EdgeMemo, build_python_graph
from analyzer.graph.rounds_graph import RoundGraph
from analyzer.plan.python import _used
from tests.graph.test_edge_memo import TREE, _built
from tests.helpers import module_index


def test_a_module_keeps_its_uses_until_a_patch_swaps_it(tmp_path):
    base = module_index(tmp_path, TREE)
    graphs, memo = RoundGraph(), EdgeMemo()
    graph = graphs.build(*_built(base, {}), memo).graph
    user, other = base.modules["pkg.user"], base.modules["pkg.other"]
    # no fold: `impl` is pkg.b's fb (the last binding); fa comes from pkg.a through pkg.reexp
    assert {("py:pkg.b:fb", "pkg/b.py"), ("py:pkg.a:fa", "pkg/a.py")} <= set(_used(graph, user))
    others = _used(graph, other)
    assert ("py:pkg.a:fa", "pkg/a.py") in others and ("py:pkg.b:fb", "pkg/b.py") not in others

    graphs.build(*_built(base, {"pkg.sel": [(5, 5)]}), memo)  # pkg.sel and pkg.user swapped
    now = set(_used(graph, user))
    assert ("py:pkg.a:fa", "pkg/a.py") in now and ("py:pkg.b:fb", "pkg/b.py") not in now
    assert _used(graph, other) is others  # not swapped: the answer of the last version
    # an edge a layer above adds out of pkg.other's function (a profile hint): read each time
    graph.add_edge("py:pkg.other:go", "py:pkg.b:fb", kind="hint")
    assert set(_used(graph, other)) == {*others, ("py:pkg.b:fb", "pkg/b.py")}
    graphs.build(*_built(base, {}), memo)  # the hint is taken off with the layers above
    assert _used(graph, other) is others
    assert ("py:pkg.b:fb", "pkg/b.py") in set(_used(graph, user))


def test_uses_in_a_graph_of_no_rounds_are_read_from_it(tmp_path):
    base = module_index(tmp_path, TREE)
    graph = build_python_graph(*_built(base, {})).graph
    other = base.modules["pkg.other"]
    first = _used(graph, other)
    graph.add_edge("py:pkg.other:go", "py:pkg.b:fb", kind="hint")
    assert set(_used(graph, other)) == {*first, ("py:pkg.b:fb", "pkg/b.py")}
