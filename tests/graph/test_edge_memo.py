"""The graph of one soundness round replays the edges of modules whose inputs did not change
since the last round (``EdgeMemo``); the result must be the graph a fresh build makes."""

from __future__ import annotations

from analyzer.decide.options import GraphOptions
from analyzer.graph.python import EdgeMemo, build_python_graph
from tests.helpers import module_index, same_python_graph

TREE = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def fa():\n    return 1\n",
    "pkg/b.py": "def fb():\n    return 2\n",
    # re-exports fa: importers of pkg.reexp resolve through this binding
    "pkg/reexp.py": "from pkg.a import fa\n",
    # `impl` bound twice (lines 3 and 5): the dead lines decide which one resolution takes
    "pkg/sel.py": ("import os\nif os.environ.get('X'):\n    from pkg.a import fa as impl\n"
                   "else:\n    from pkg.b import fb as impl\n"),
    "pkg/user.py": ("from pkg.sel import impl\nfrom pkg.reexp import fa\n\n\n"
                    "def run():\n    return impl(), fa()\n"),
    "pkg/other.py": "from pkg.reexp import fa\n\n\ndef go():\n    return fa()\n",
}


def _built(index, dead):
    return index.with_dead_lines(dead), GraphOptions(
        dead_lines={m: tuple(sorted(r)) for m, r in dead.items()})


def test_a_changed_binding_order_rebuilds_the_modules_resolving_through_it(tmp_path):
    base = module_index(tmp_path, TREE)
    memo = EdgeMemo()
    build_python_graph(*_built(base, {}), memo)
    assert memo.replayed == 0
    # no fold: the last binding (line 5, pkg.b) is the one resolution takes
    first = build_python_graph(*_built(base, {}))
    assert first.graph.has_edge("py:pkg.user:run", "py:pkg.b:fb")

    dead = {"pkg.sel": [(5, 5)]}  # the else arm folded away: line 3's binding wins
    again = build_python_graph(*_built(base, dead), memo)
    fresh = build_python_graph(*_built(base, dead))
    same_python_graph(again, fresh)
    assert again.graph.has_edge("py:pkg.user:run", "py:pkg.a:fa")
    assert not again.graph.has_edge("py:pkg.user:run", "py:pkg.b:fb")
    # pkg.sel (its own lines) and pkg.user (resolves `impl` through it) are rebuilt; the
    # other five modules replay
    assert memo.replayed == 5


def test_reexports_are_recorded_for_every_module_resolving_through_them(tmp_path):
    base = module_index(tmp_path, TREE)
    memo = EdgeMemo()
    build_python_graph(*_built(base, {}), memo)
    # pkg.other resolves fa through pkg.reexp first; pkg.user answers from the memo table
    # and still owes its edges to that binding
    assert ("pkg.reexp", "fa") in memo.records["pkg.user"][1].reexports
    assert ("pkg.reexp", "fa") in memo.records["pkg.other"][1].reexports

    dead = {"pkg.other": [(1, 1)]}  # pkg.other's import folded: only pkg.user still needs it
    again = build_python_graph(*_built(base, dead), memo)
    fresh = build_python_graph(*_built(base, dead))
    same_python_graph(again, fresh)
    assert "pkg.user" in again.reexported_by[("pkg.reexp", "fa")]
    assert memo.replayed == 6  # pkg.other alone is rebuilt


def _replayed_under(tmp_path, options: GraphOptions) -> int:
    """How many modules a build under ``options`` replays from a build without folds and
    options (its graph checked against a fresh build's)."""
    base = module_index(tmp_path, TREE)
    memo = EdgeMemo()
    build_python_graph(*_built(base, {}), memo)
    index, _ = _built(base, {})
    again = build_python_graph(index, options, memo)
    same_python_graph(again, build_python_graph(index, options))
    return memo.replayed


def test_a_module_whose_imports_freeze_is_rebuilt_alone(tmp_path):
    # frozen_imports says which modules' from-imports keep what they import live: a
    # module's own edges read only whether it is one of them
    options = GraphOptions(frozen_imports=frozenset({"pkg.user"}))
    assert _replayed_under(tmp_path, options) == 6  # pkg.user alone is rebuilt


def test_changed_plugin_families_rebuild_everything(tmp_path):
    assert _replayed_under(tmp_path, GraphOptions(restricted_families={"pkg": "plugins"})) == 0


def test_records_a_forked_copy_logged_are_absorbed_under_the_same_key_only(tmp_path):
    # the share plans' workers hand back the module records they made (pipeline/shares.py)
    import copy

    base = module_index(tmp_path, TREE)
    memo = EdgeMemo()
    build_python_graph(*_built(base, {}), memo)
    worker = copy.deepcopy(memo)
    worker.logging()
    dead = {"pkg.sel": [(5, 5)]}
    build_python_graph(*_built(base, dead), worker)
    assert {m for m, _local, _record in worker.log or []} == {"pkg.sel", "pkg.user"}

    other_key = copy.deepcopy(memo)
    other_key.absorb(("another key",), worker.log or [])
    build_python_graph(*_built(base, dead), other_key)
    assert other_key.replayed == 5  # nothing absorbed: the two modules resolved again

    memo.absorb(worker.global_key, worker.log or [])
    again = build_python_graph(*_built(base, dead), memo)
    assert memo.replayed == 7  # every module replays, the two the worker made too
    same_python_graph(again, build_python_graph(*_built(base, dead)))
