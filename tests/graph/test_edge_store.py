"""Each module's edges persisted between scans of the same tree (``analyzer/graph/edge_store.py``):
replayed only while the module index is the one they were made from, and a scan answered from
them plans what a scan without any cache plans."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from analyzer.decide.options import GraphOptions
from analyzer.graph.edge_store import EdgeStore, index_key
from analyzer.graph.python import EdgeMemo, build_python_graph
from analyzer.model import FileInfo
from analyzer.pipeline.scan import run_scan
from tests.helpers import MINI_SGLANG, module_index, same_python_graph, store_entries, write_tree

TREE = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def fa():\n    return 1\n",
    "pkg/user.py": "from pkg.a import fa\n\n\ndef run():\n    return fa()\n",
}


def _files(index, digest: str = "x") -> dict[str, FileInfo]:
    return {m.path: FileInfo(m.path, f"{digest}:{m.path}", 1, "python")
            for m in index.modules.values()}


def _built(tmp_path: Path, files: dict[str, str]):
    """(index, key, store, memo) of a tree of ``files`` (under ``tmp_path / "t"``) after one
    build from what its store held."""
    index = module_index(tmp_path / "t", files)
    key = index_key(index, _files(index), ())
    store = EdgeStore(tmp_path / "cache", tmp_path / "t")
    memo = store.load(key)
    build_python_graph(index, GraphOptions(), memo)
    return index, key, store, memo


def test_the_memo_of_the_last_scan_replays_every_module_of_the_same_index(tmp_path: Path):
    index, key, store, first = _built(tmp_path, TREE)
    assert first.computed == 3 and first.replayed == 0
    store.save(key, first)

    again = EdgeStore(tmp_path / "cache", tmp_path / "t").load(key)
    replayed = build_python_graph(index, GraphOptions(), again)
    assert again.replayed == 3 and again.computed == 0
    same_python_graph(replayed, build_python_graph(index, GraphOptions()))
    # folded lines the stored memo never saw: that module alone is resolved again
    folded = GraphOptions(dead_lines={"pkg.user": ((1, 1),)})
    build_python_graph(index.with_dead_lines({"pkg.user": [(1, 1)]}), folded, again)
    assert again.computed == 1 and again.replayed == 2


def test_an_edited_module_forgets_its_records_and_those_of_modules_that_read_it(tmp_path: Path):
    index = module_index(tmp_path / "t", {**TREE, "pkg/b.py": "def fb():\n    return 2\n"})
    key = index_key(index, _files(index), ())
    store = EdgeStore(tmp_path / "cache", tmp_path / "t")
    memo = store.load(key)
    build_python_graph(index, GraphOptions(), memo)
    # pkg.user resolved `fa` in pkg.a; pkg, pkg.a and pkg.b read no other module's facts
    assert {m: [r.consulted for _, r in v] for m, v in memo.variants.items()} == {
        "pkg": [frozenset()], "pkg.a": [frozenset()], "pkg.b": [frozenset()],
        "pkg.user": [frozenset({"pkg.a"})]}
    store.save(key, memo)
    edited = index_key(index, {**_files(index), "pkg/a.py": FileInfo(
        "pkg/a.py", "changed", 1, "python")}, ())
    assert edited.shape == key.shape
    assert set(store.load(edited).variants) == {"pkg", "pkg.b"}
    # pkg.b now only counted (not parsed): it alone is forgotten
    assert set(store.load(index_key(index, _files(index), ("pkg/b.py",))).variants) == {
        "pkg", "pkg.a", "pkg.user"}


def _stored(tmp_path: Path, files: dict[str, str]) -> EdgeStore:
    """The edge store of a tree of ``files`` (under ``tmp_path / "t"``) after one build."""
    _, key, store, memo = _built(tmp_path, files)
    store.save(key, memo)
    return store


def test_a_damaged_file_or_another_code_starts_afresh(tmp_path: Path):
    store = _stored(tmp_path, TREE)
    index = module_index(tmp_path / "t", {})
    key = index_key(index, _files(index), ())
    assert set(store.load(key).variants) == {"pkg", "pkg.a", "pkg.user"}
    # the memo of another version of the code that resolves: not even read
    assert store.load(dataclasses.replace(key, code=key.code + "x")).variants == {}
    stored = store_entries(tmp_path / "cache", "edges")[0]
    stored.write_bytes(stored.read_bytes()[:-10])
    assert store.load(key).variants == {}
    assert EdgeStore(None, tmp_path / "t").load(key) == EdgeMemo()  # no cache folder


def _reshaped(tmp_path: Path, store: EdgeStore, added: dict[str, str],
              removed: tuple[str, ...] = ()) -> tuple[set[str], int]:
    """The modules whose records a tree with ``added`` and without ``removed`` (files) keeps,
    and how many modules a build with them resolves -- its graph checked against a build
    without any memo."""
    for rel in removed:
        (tmp_path / "t" / rel).unlink()
    index = module_index(tmp_path / "t", added)
    memo = store.load(index_key(index, _files(index), ()))
    kept = set(memo.variants)
    replayed = build_python_graph(index, GraphOptions(), memo)
    same_python_graph(replayed, build_python_graph(index, GraphOptions()))
    return kept, memo.computed


def test_a_file_added_resolves_only_the_modules_that_asked_about_its_name(tmp_path: Path):
    # pkg/c.py is new: no record asked whether pkg.c is a module, nor what pkg holds
    store = _stored(tmp_path, TREE)
    kept, computed = _reshaped(tmp_path, store, {"pkg/c.py": ""})
    assert kept == {"pkg", "pkg.a", "pkg.user"}
    assert computed == 1  # pkg.c itself


def test_a_file_removed_resolves_its_importers_again(tmp_path: Path):
    # pkg.user imports pkg.b, pkg.other names pkg.b in a string; pkg.a asks nothing of it
    store = _stored(tmp_path, {**TREE, "pkg/b.py": "def fb():\n    return 2\n",
                               "pkg/user.py": "from pkg.a import fa\nfrom pkg.b import fb\n",
                               "pkg/other.py": 'NAME = "pkg.b.fb"\n'})
    kept, computed = _reshaped(tmp_path, store, {}, removed=("pkg/b.py",))
    assert kept == {"pkg", "pkg.a"}
    assert computed == 2  # pkg.user and pkg.other


def test_a_walked_package_that_gains_a_module_resolves_its_walker_again(tmp_path: Path):
    # pkg.loader loads every module of pkg.plugins (pkgutil): a new plugin is an edge more
    store = _stored(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/plugins/__init__.py": "",
        "pkg/plugins/one.py": "def run():\n    return 1\n",
        "pkg/loader.py": ("import pkgutil\n\nPLUGINS = 'pkg.plugins'\n\n\n"
                          "def load():\n    return list(pkgutil.iter_modules(PLUGINS))\n"),
    })
    kept, computed = _reshaped(tmp_path, store,
                               {"pkg/plugins/two.py": "def run():\n    return 2\n"})
    assert kept == {"pkg", "pkg.plugins", "pkg.plugins.one"}
    assert computed == 2  # pkg.loader and pkg.plugins.two


def test_a_subclass_more_resolves_the_modules_enumerating_its_base_again(tmp_path: Path):
    # pkg.cli enumerates Base.__subclasses__(); pkg.user imports Base and enumerates nothing;
    # pkg/three.py is new: no record asked about pkg.three, but pkg.cli read Base's subclasses
    files = {
        "pkg/__init__.py": "",
        "pkg/base.py": "class Base:\n    pass\n",
        "pkg/one.py": "from pkg.base import Base\n\n\nclass One(Base):\n    pass\n",
        "pkg/cli.py": ("from pkg.base import Base\n\n\n"
                       "def every():\n    return Base.__subclasses__()\n"),
        "pkg/user.py": "from pkg.base import Base\n\n\ndef make():\n    return Base()\n",
    }
    store = _stored(tmp_path, files)
    kept, computed = _reshaped(tmp_path, store, {
        "pkg/three.py": "from pkg.base import Base\n\n\nclass Three(Base):\n    pass\n"})
    assert kept == {"pkg", "pkg.base", "pkg.one", "pkg.cli", "pkg.user"}
    assert computed == 2  # pkg.three, and pkg.cli: its record holds no more
    # a subclass removed: pkg.cli's edges went to it (it read pkg.three's facts)
    store = _stored(tmp_path / "again", {**files, "pkg/three.py": (
        "from pkg.base import Base\n\n\nclass Three(Base):\n    pass\n")})
    kept, computed = _reshaped(tmp_path / "again", store, {}, removed=("pkg/three.py",))
    assert kept == {"pkg", "pkg.base", "pkg.one", "pkg.user"}
    assert computed == 1


def test_an_edited_file_is_never_answered_with_its_old_edges(tmp_path: Path):
    # run() calls helper(); other() is dead. Then run() calls other() too: the second scan
    # must see the new edge although nothing else changed (its memo key is the old tree's)
    files = {
        "app/__init__.py": "",
        "app/__main__.py": "from app.main import run\n\nrun()\n",
        "app/main.py": "from app.lib import helper\n\n\ndef run():\n    return helper()\n",
        "app/lib.py": "def helper():\n    return 1\n\n\ndef other():\n    return 2\n",
    }
    tree = write_tree(tmp_path / "t", files)
    cache = tmp_path / "cache"
    first = run_scan(tree, [], use_profile=False, cache_dir=cache)
    assert {d.symbol for d in first.plan.deletions} == {"app.lib:other"}
    assert store_entries(cache, "edges")
    write_tree(tree, {"app/main.py": ("from app.lib import helper, other\n\n\n"
                                      "def run():\n    return helper(), other()\n")})
    second = run_scan(tree, [], use_profile=False, cache_dir=cache)
    # the new edge itself (the plan's check would also refuse to break the new import)
    assert second.graph.has_edge("py:app.main:run", "py:app.lib:other")
    assert second.plan.deletions == []


def test_an_edited_reexport_is_resolved_again_by_its_importers(tmp_path: Path):
    # app.main resolves `fa` through app.reexp's binding; app.reexp then binds another
    # function under that name: app.main (its own bytes unchanged) must follow the new one
    tree = write_tree(tmp_path / "t", {
        "app/__init__.py": "",
        "app/__main__.py": "from app.main import run\n\nrun()\n",
        "app/main.py": "from app.reexp import fa\n\n\ndef run():\n    return fa()\n",
        "app/reexp.py": "from app.lib import fa\n",
        "app/lib.py": "def fa():\n    return 1\n\n\ndef fb():\n    return 2\n",
    })
    cache = tmp_path / "cache"
    first = run_scan(tree, [], use_profile=False, cache_dir=cache)
    assert first.graph.has_edge("py:app.main:run", "py:app.lib:fa")
    write_tree(tree, {"app/reexp.py": "from app.lib import fb as fa\n"})
    second = run_scan(tree, [], use_profile=False, cache_dir=cache)
    assert second.graph.has_edge("py:app.main:run", "py:app.lib:fb")
    assert not second.graph.has_edge("py:app.main:run", "py:app.lib:fa")


def test_a_name_a_module_comes_to_define_is_found_by_its_readers(tmp_path: Path):
    # lib.helper does not exist at first (the read resolves to nothing); once app/lib.py
    # defines it, app.main's unchanged read must reach it
    tree = write_tree(tmp_path / "t", {
        "app/__init__.py": "",
        "app/__main__.py": "from app.main import run\n\nrun()\n",
        "app/main.py": "import app.lib as lib\n\n\ndef run():\n    return lib.helper()\n",
        "app/lib.py": "def other():\n    return 2\n",
    })
    cache = tmp_path / "cache"
    run_scan(tree, [], use_profile=False, cache_dir=cache)
    write_tree(tree, {"app/lib.py": "def other():\n    return 2\n\n\ndef helper():\n"
                                    "    return 1\n"})
    second = run_scan(tree, [], use_profile=False, cache_dir=cache)
    assert second.graph.has_edge("py:app.main:run", "py:app.lib:helper")


def test_a_changed_profile_plans_what_an_uncached_scan_plans(tmp_path: Path):
    # the sample's defaults drop fa3 and flashmla: a scan keeping them, answered from the
    # memo of the default scan, must plan exactly what the same scan without a cache plans
    cache = tmp_path / "cache"
    default = run_scan(MINI_SGLANG, ["deepseek_v2"], cache_dir=cache)
    kept = run_scan(MINI_SGLANG, ["deepseek_v2"], cache_dir=cache, keep=("fa3", "flashmla"))
    uncached = run_scan(MINI_SGLANG, ["deepseek_v2"], keep=("fa3", "flashmla"))
    assert kept.plan.deletions == uncached.plan.deletions
    assert kept.plan.deletions != default.plan.deletions


def test_a_stored_record_reads_back_as_it_was_made(tmp_path: Path):
    """The persisted form of a record writes each edge's attributes as plain values (no
    object per edge for pickle to remember); read back, every addition is what was made."""
    from analyzer.graph.python import op_triples
    from analyzer.nodes import EdgeData
    from analyzer.util import pickling

    index = module_index(tmp_path / "t", TREE)
    memo = EdgeMemo()
    build_python_graph(index, GraphOptions(), memo)
    data = pickling.dumps(memo)
    assert b"EdgeData" not in data
    loaded = pickling.loads(data)
    assert isinstance(loaded, EdgeMemo)
    assert set(loaded.variants) == set(memo.variants) == set(index.modules)
    for module, kept in memo.variants.items():
        (local, record), = kept
        (local_again, again), = loaded.variants[module]
        assert local_again == local
        made = list(op_triples(record.ops))
        read = list(op_triples(again.ops))
        assert [(a, b) for a, b, _ in read] == [(a, b) for a, b, _ in made]
        for (_, dst, attrs), (_, _, attrs_again) in zip(made, read, strict=True):
            assert type(attrs_again) is type(attrs)
            assert dict(attrs_again) == dict(attrs)
            assert dst is None or isinstance(attrs_again, EdgeData)
        assert (again.unresolved, again.decisions, again.reexports, again.orders,
                again.registries, again.consulted, again.owned) == (
            record.unresolved, record.decisions, record.reexports, record.orders,
            record.registries, record.consulted, record.owned)
    # user's record holds the call of pkg.a's fa, at line 5 of pkg/user.py (`return fa()`)
    user = loaded.variants["pkg.user"][0][1]
    user_edges = [(dst, dict(a)) for _, dst, a in op_triples(user.ops) if dst is not None]
    assert ("py:pkg.a:fa", {"kind": "reference", "file": "pkg/user.py", "line": 5}) in user_edges


def _stored_files(cache: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in store_entries(cache, "edges")}


# six modules: pkg.user reads pkg.a; one module's changed records are under a quarter
SIX = {**TREE, "pkg/b.py": "def fb():\n    return 2\n", "pkg/c.py": "X = 1\n",
       "pkg/d.py": "Y = 2\n"}


def _whole_then_user_folded(tmp_path: Path):
    """The whole memo of SIX stored; then a build with pkg.user's import line folded (a
    second record of pkg.user, nothing else changes) stored by the same kind of scan.
    Returns the index, its key, the cache folder, the whole memo's file name and bytes
    as first written, and the second build's memo."""
    index = module_index(tmp_path / "t", SIX)
    key = index_key(index, _files(index), ())
    cache = tmp_path / "cache"
    store = EdgeStore(cache, tmp_path / "t")
    memo = store.load(key)
    build_python_graph(index, GraphOptions(), memo)
    store.save(key, memo)
    (whole_name, whole), = _stored_files(cache).items()  # the whole memo, alone
    store = EdgeStore(cache, tmp_path / "t")
    memo = store.load(key)
    assert memo.touched == set()
    _build_user_folded(index, memo)
    store.save(key, memo)
    return index, key, cache, whole_name, whole, memo


def _build_user_folded(index, memo: EdgeMemo) -> None:
    build_python_graph(index.with_dead_lines({"pkg.user": [(1, 1)]}),
                       GraphOptions(dead_lines={"pkg.user": ((1, 1),)}), memo)


def test_a_scan_that_changes_a_few_records_writes_only_those(tmp_path: Path):
    """The whole memo is written once; a later build that keeps one new record (one module's
    folded lines) writes that module's records beside it, with the key it ends with, and
    leaves the whole memo's file as it was. A store loading both replays what the last build
    held; a store whose whole memo is written again drops the changes."""
    index, key, cache, whole_name, whole, memo = _whole_then_user_folded(tmp_path)
    assert memo.touched == {"pkg.user"} and memo.computed == 1
    files = _stored_files(cache)
    assert files[whole_name] == whole  # not written again
    assert set(files) == {whole_name, whole_name + ".changes"}

    again = EdgeStore(cache, tmp_path / "t").load(key)
    assert [local for local, _ in again.variants["pkg.user"]] == [
        ((), ()), (((1, 1),), ())]  # the record of the whole memo, then the changed one
    _build_user_folded(index, again)
    assert again.computed == 0  # both pkg.user records came back

    # pkg.a edited: it and its reader pkg.user are forgotten (2 of 6 modules: more than a
    # quarter), so the whole memo is written again, and the changes go
    edited = index_key(index, {**_files(index), "pkg/a.py": FileInfo(
        "pkg/a.py", "changed", 1, "python")}, ())
    store = EdgeStore(cache, tmp_path / "t")
    memo = store.load(edited)
    assert memo.touched == {"pkg.a", "pkg.user"}
    build_python_graph(index, GraphOptions(), memo)
    store.save(edited, memo)
    files = _stored_files(cache)
    assert set(files) == {whole_name} and files[whole_name] != whole
    assert set(EdgeStore(cache, tmp_path / "t").load(edited).variants) == set(index.modules)


def test_changes_of_another_whole_memo_are_ignored(tmp_path: Path):
    """Changes name the whole memo they were written against: beside another one (written
    since by another scan), they are not read."""
    index, key, cache, whole_name, _whole, _memo = _whole_then_user_folded(tmp_path)
    changes = _stored_files(cache)[whole_name + ".changes"]
    # another scan writes the whole memo afresh (a new token); the old changes put back
    fresh = EdgeStore(cache, tmp_path / "t")
    memo = EdgeMemo()
    build_python_graph(index, GraphOptions(), memo)
    fresh.save(key, memo)
    assert set(_stored_files(cache)) == {whole_name}
    (store_entries(cache, "edges")[0].parent / (whole_name + ".changes")).write_bytes(changes)
    loaded = EdgeStore(cache, tmp_path / "t").load(key)
    assert [local for local, _ in loaded.variants["pkg.user"]] == [((), ())]
    assert loaded.touched == set()


PRUNED_FROM = {**TREE, "pkg/b.py": "def fb():\n    return 2\n",
               "pkg/d.py": "from pkg.b import fb\n\n\ndef go():\n    return fb()\n"}


def test_a_pruned_tree_starts_from_the_last_scan_of_its_origin(tmp_path: Path):
    # the pruning deletes pkg/b.py; pkg/d.py, which imports it, stays as it was (broken: what
    # a verify of the pruned tree must see); pkg.user (reads pkg.a), pkg.a and pkg are kept
    _stored(tmp_path, PRUNED_FROM)
    index = module_index(tmp_path / "copy", {**TREE, "pkg/d.py": PRUNED_FROM["pkg/d.py"]})
    key = index_key(index, _files(index), ())
    store = EdgeStore(tmp_path / "cache", tmp_path / "copy", origin=tmp_path / "t")
    memo = store.load(key)
    assert set(memo.variants) == {"pkg", "pkg.a", "pkg.user"}  # (pkg.d read pkg.b: gone)
    graph = build_python_graph(index, GraphOptions(), memo)
    assert (memo.replayed, memo.computed) == (3, 1)  # pkg.d resolved again
    same_python_graph(graph, build_python_graph(index, GraphOptions()))
    store.save(key, memo)
    # kept under the copy's own slot: a later scan of it reads that, not the origin's
    _stored(tmp_path, {"pkg/__init__.py": "", "pkg/other.py": "X = 1\n"})
    again = EdgeStore(tmp_path / "cache", tmp_path / "copy", origin=tmp_path / "t").load(key)
    assert set(again.variants) == {"pkg", "pkg.a", "pkg.user", "pkg.d"}
    build_python_graph(index, GraphOptions(), again)
    assert (again.replayed, again.computed) == (4, 0)
    # without an origin, a tree never scanned starts from nothing
    assert EdgeStore(tmp_path / "cache", tmp_path / "fresh").load(key).variants == {}


def test_a_memo_saved_is_not_written_again_until_it_keeps_more(tmp_path: Path):
    index, key, store, memo = _built(tmp_path, TREE)
    store.save(key, memo)
    for entry in store_entries(tmp_path / "cache", "edges"):
        entry.unlink()
    store.save(key, memo)  # (the scan's save before the gate, then its last: once)
    assert store_entries(tmp_path / "cache", "edges") == []
    folded = GraphOptions(dead_lines={"pkg.user": ((1, 1),)})
    build_python_graph(index.with_dead_lines({"pkg.user": [(1, 1)]}), folded, memo)
    store.save(key, memo)  # a record more: written (in whole: 1 module of 3 is over a quarter)
    assert EdgeStore(tmp_path / "cache", tmp_path / "t").load(key).variants.keys() == {
        "pkg", "pkg.a", "pkg.user"}
