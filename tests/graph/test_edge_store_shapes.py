"""Each module's recorded edges in a tree of another shape (``analyzer/graph/edge_store.py``
with ``analyzer/resolve/shape.py``): the gate's pruned copy starts from the memo of the tree
it was pruned from; a record stands where nothing it asked about answers otherwise, and the
graph made so is the graph made from nothing. The modules expected to be resolved again are
read off the trees below."""

from __future__ import annotations

from pathlib import Path

from analyzer.decide.options import GraphOptions
from analyzer.graph.edge_store import EdgeStore, index_key
from analyzer.graph.python import build_python_graph
from analyzer.model import FileInfo
from tests.helpers import module_index, same_python_graph

FULL = {
    "app/__init__.py": "",
    # `fast` is the submodule while its file is there, else the package's own `fast`
    "app/main.py": "from app.plugins import fast\nfrom app import util\n\n\n"
                   "def run():\n    return fast, util.u()\n",
    "app/plugins/__init__.py": "fast = None\n",
    "app/plugins/fast.py": "def go():\n    return 1\n",
    # a string naming a folder of plugins (no __init__.py): each of its modules is loaded
    "app/loader.py": 'PLUGINS = "app.ext"\n',
    "app/ext/a.py": "def a():\n    return 1\n",
    "app/ext/b.py": "def b():\n    return 2\n",
    # a relative path to a Python file: the module it names is loaded
    "app/runner.py": 'SCRIPT = "app/other.py"\n',
    "app/other.py": "def o():\n    return 3\n",
    "app/util.py": "def u():\n    return 2\n",
    "app/stable.py": "from app.util import u\n\n\ndef s():\n    return u()\n",
}
PRUNED = ("app/plugins/fast.py", "app/ext/b.py", "app/other.py")


def _files(index) -> dict[str, FileInfo]:
    return {m.path: FileInfo(m.path, f"sha:{m.path}", 1, "python")
            for m in index.modules.values()}


def _memo_of_full_tree(tmp_path: Path):
    full = module_index(tmp_path / "full", FULL)
    key = index_key(full, _files(full), ())
    store = EdgeStore(tmp_path / "cache", tmp_path / "full")
    memo = store.load(key)
    build_python_graph(full, GraphOptions(), memo)
    store.save(key, memo)


def test_the_pruned_copy_starts_from_the_memo_of_its_tree(tmp_path: Path):
    _memo_of_full_tree(tmp_path)
    pruned = module_index(tmp_path / "copy", {p: s for p, s in FULL.items() if p not in PRUNED})
    key = index_key(pruned, _files(pruned), ())
    store = EdgeStore(tmp_path / "cache", tmp_path / "copy", fallback=tmp_path / "full")
    memo = store.load(key)
    # app.main asked whether app.plugins.fast is a module, app.loader listed app.ext's
    # children, app.runner looked up app/other.py: each answers otherwise now
    assert set(memo.variants) == {"app", "app.plugins", "app.ext.a", "app.util", "app.stable"}
    graph = build_python_graph(pruned, GraphOptions(), memo)
    assert memo.replayed == 5 and memo.computed == 3
    same_python_graph(graph, build_python_graph(pruned, GraphOptions()))
    edges = set(graph.graph.edges())
    assert ("py:app.main", "py:app.plugins.fast") not in edges
    assert ("py:app.loader", "py:app.ext.b") not in edges
    assert ("py:app.loader", "py:app.ext.a") in edges
    assert not any(v == "py:app.other" for _, v in edges)


def test_its_own_memo_of_another_shape_comes_first_and_is_checked_alike(tmp_path: Path):
    _memo_of_full_tree(tmp_path)
    pruned_files = {p: s for p, s in FULL.items() if p not in PRUNED}
    pruned = module_index(tmp_path / "copy", pruned_files)
    key = index_key(pruned, _files(pruned), ())
    store = EdgeStore(tmp_path / "cache", tmp_path / "copy", fallback=tmp_path / "full")
    memo = store.load(key)
    build_python_graph(pruned, GraphOptions(), memo)
    store.save(key, memo)
    # the next copy (another plan) keeps app/other.py: only what asked about it changes
    grown = module_index(tmp_path / "copy2", {**pruned_files, "app/other.py": FULL["app/other.py"]})
    grown_key = index_key(grown, _files(grown), ())
    again = EdgeStore(tmp_path / "cache", tmp_path / "copy", fallback=tmp_path / "full")
    memo2 = again.load(grown_key)
    # (the copy's own slot, not the full tree's: app.main and app.loader hold there)
    assert set(memo2.variants) == {"app", "app.main", "app.plugins", "app.loader",
                                   "app.ext.a", "app.util", "app.stable"}
    graph = build_python_graph(grown, GraphOptions(), memo2)
    assert memo2.computed == 2  # app.runner and the new app.other
    same_python_graph(graph, build_python_graph(grown, GraphOptions()))


def test_a_renamed_package_file_is_asked_about_by_every_module_under_it(tmp_path: Path):
    _memo_of_full_tree(tmp_path)
    # app/plugins/__init__.py gone: app.plugins a namespace package now, `fast` only the file
    moved = module_index(tmp_path / "copy", {p: s for p, s in FULL.items()
                                             if p != "app/plugins/__init__.py"})
    key = index_key(moved, _files(moved), ())
    memo = EdgeStore(tmp_path / "cache", tmp_path / "copy", fallback=tmp_path / "full").load(key)
    # app.plugins.fast runs its package's __init__.py first (parent_package): resolved again;
    # app.main resolved `fast` in app.plugins
    assert "app.plugins.fast" not in memo.variants and "app.main" not in memo.variants
    graph = build_python_graph(moved, GraphOptions(), memo)
    same_python_graph(graph, build_python_graph(moved, GraphOptions()))


def test_a_module_added_is_found_by_what_asked_for_it_before_it_was_there(tmp_path: Path):
    smaller = module_index(tmp_path / "small", {p: s for p, s in FULL.items()
                                                if p not in ("app/plugins/fast.py",
                                                             "app/ext/b.py")})
    key = index_key(smaller, _files(smaller), ())
    store = EdgeStore(tmp_path / "cache", tmp_path / "small")
    memo = store.load(key)
    build_python_graph(smaller, GraphOptions(), memo)
    store.save(key, memo)
    full = module_index(tmp_path / "full", FULL)
    memo = EdgeStore(tmp_path / "cache", tmp_path / "full", fallback=tmp_path / "small").load(
        index_key(full, _files(full), ()))
    # app.main found no module app.plugins.fast (it read the package's `fast`); app.loader
    # listed app.ext's children when b.py was not one
    assert set(memo.variants) == {"app", "app.plugins", "app.ext.a", "app.runner",
                                  "app.other", "app.util", "app.stable"}
    graph = build_python_graph(full, GraphOptions(), memo)
    assert memo.computed == 4  # app.main, app.loader and the two new modules
    same_python_graph(graph, build_python_graph(full, GraphOptions()))
    assert ("py:app.main", "py:app.plugins.fast") in set(graph.graph.edges())
