"""Analysis stage, the roots a profile declares (``analyzer/analysis/profile_roots.py``): entry
points, every module of a ``select = "all"`` family, ``never_delete`` entries (symbol globs,
modules, path globs), kept targets; declarations that match nothing are stale, and default
roots inside a dropped feature are no roots. Line numbers are counted in PROFILE."""

from __future__ import annotations

import textwrap
from pathlib import Path

import networkx as nx
import pytest

from analyzer.analysis.profile_roots import (
    all_family_modules,
    entry_point_nodes,
    keep_target_names,
    never_delete_nodes,
    without_dropped,
)
from analyzer.config.profile import load_profile_text
from analyzer.decide.profile_facts import ProfileUse, profile_use
from tests.helpers import module_index

PROFILE = textwrap.dedent("""
    name = "t"
    entry_points = ["pkg.cli:main", "pkg.serve", "pkg.gone:main"]
    keep_targets = ["common_*", "missing_ops"]

    [[plugin_families]]
    name = "tools"
    package = "pkg.tools"
    select = "all"
    recursive = true

    [[never_delete]]
    symbol = "pkg.api:handle_*"
    reason = "called by name from the config"

    [[never_delete]]
    symbol = "pkg.serve"
    reason = "loaded by the launcher"

    [[never_delete]]
    path = "csrc/keep/**"
    reason = "built out of tree"

    [[never_delete]]
    symbol = "pkg.api:nothing_*"
    reason = "stale on purpose"

    [features.npu]
    description = "npu"
    paths = ["pkg/npu/**"]

    [features.shared]
    description = "kept: claims one npu file too"
    paths = ["pkg/npu/shared.py"]
    """).lstrip("\n")


def graph() -> nx.DiGraph:
    g = nx.DiGraph()
    for module, path in [("pkg.cli", "pkg/cli.py"), ("pkg.serve", "pkg/serve.py"),
                         ("pkg.api", "pkg/api.py"), ("pkg.npu.selftest", "pkg/npu/selftest.py"),
                         ("pkg.npu.shared", "pkg/npu/shared.py")]:
        g.add_node(f"py:{module}", kind="module", module=module, path=path)
    for module, name, path in [("pkg.cli", "main", "pkg/cli.py"),
                               ("pkg.api", "handle_get", "pkg/api.py"),
                               ("pkg.api", "handle_put", "pkg/api.py"),
                               ("pkg.api", "helper", "pkg/api.py")]:
        g.add_node(f"py:{module}:{name}", kind="symbol", module=module, name=name, path=path)
    g.add_node("file:csrc/keep/k.cu", kind="native_file", path="csrc/keep/k.cu")
    g.add_node("cmake:csrc/keep/k.cmake", kind="cmake_file", path="csrc/keep/k.cmake")
    g.add_node("file:csrc/other.cu", kind="native_file", path="csrc/other.cu")
    g.add_node("target:keep_me", kind="target", name="keep_me", path="csrc/keep/CMakeLists.txt")
    return g


@pytest.fixture
def use() -> ProfileUse:
    return profile_use(load_profile_text(PROFILE, "t.toml"), ("npu",))


def test_entry_points(use: ProfileUse) -> None:
    assert entry_point_nodes(use, graph()) == (
        ["py:pkg.cli:main", "py:pkg.serve"], ["t.toml: entry point pkg.gone:main matches nothing"])


def test_every_module_of_an_all_family(use: ProfileUse, tmp_path: Path) -> None:
    index = module_index(tmp_path, {
        "pkg/__init__.py": "", "pkg/tools/__init__.py": "", "pkg/tools/a.py": "",
        "pkg/tools/sub/__init__.py": "", "pkg/tools/sub/b.py": "",
        "pkg/tools/ns/c.py": "",  # ns/ has no __init__.py: a namespace package, no module
        "pkg/other.py": ""})
    assert sorted(all_family_modules(use, index)) == [
        "py:pkg.tools.a", "py:pkg.tools.ns.c", "py:pkg.tools.sub", "py:pkg.tools.sub.b"]


def test_never_delete_entries(use: ProfileUse) -> None:
    nodes, stale = never_delete_nodes(use, graph())
    # a symbol glob, a module, a path glob over modules and native and CMake files (not targets)
    assert sorted(nodes) == ["cmake:csrc/keep/k.cmake", "file:csrc/keep/k.cu",
                             "py:pkg.api:handle_get", "py:pkg.api:handle_put", "py:pkg.serve"]
    assert stale == ["t.toml:23: never_delete entry pkg.api:nothing_* matches nothing (stale)"]


def test_default_roots_inside_a_dropped_feature_are_no_roots(use: ProfileUse) -> None:
    roots = ["py:pkg.cli:main", "py:pkg.npu.selftest", "py:pkg.npu.shared"]
    # selftest.py belongs to npu alone; shared.py is also claimed by the kept feature
    assert without_dropped(roots, graph(), use) == ["py:pkg.cli:main", "py:pkg.npu.shared"]


def test_keep_targets(use: ProfileUse) -> None:
    names, stale = keep_target_names(use, ("flash_ops", "common_*"),
                                     ["common_ops", "flash_ops", "moe_ops"])
    # the command line's first, then the profile's patterns that match a target, once each
    assert names == ("flash_ops", "common_*")
    assert stale == ["t.toml: keep_targets missing_ops matches no target"]
    # a tree without targets: nothing is stale
    assert keep_target_names(use, (), []) == ((), [])


def test_without_a_profile_nothing_is_declared(tmp_path: Path) -> None:
    none = profile_use(None, ())
    assert entry_point_nodes(none, graph()) == ([], [])
    assert never_delete_nodes(none, graph()) == ([], [])
    assert all_family_modules(none, module_index(tmp_path, {"pkg/__init__.py": ""})) == []
    assert keep_target_names(none, ("x",), ["x"]) == (("x",), [])


def test_feature_paths_and_identifiers_matching_nothing_are_stale(tmp_path: Path) -> None:
    from analyzer.analysis.profile_roots import stale_feature_patterns
    from analyzer.pipeline.scan import run_scan
    from tests.helpers import write_tree

    tree = write_tree(tmp_path / "t", {
        "depgraph.toml": 'name = "t"\ndescription = "t"\ndefault_drops = []\n\n'
                         '[features.f]\ndescription = "f"\n'
                         'paths = ["app/gone.py", "app/here.py"]\n'
                         'identifiers = ["Here*", "helper", "method_of_here", "Nowhere*"]\n',
        "app/__init__.py": "",
        "app/here.py": "class HereClass:\n    def method_of_here(self):\n        pass\n\n\n"
                       "helper = 1\n",
    })
    result = run_scan(tree, [])
    stale = stale_feature_patterns(result.profile, result.index, list(result.files))
    assert [s.split(": ", 1)[1] for s in stale] == [
        "feature f: path app/gone.py matches no file (stale)",
        "feature f: identifier Nowhere* matches no definition (stale)"]
    assert stale == [s for s in result.profile.stale if "feature f" in s]


def test_stale_feature_patterns_are_found_once_per_profile_and_tree(tmp_path: Path) -> None:
    # every plan under other drops asks again with the same profile and tree: the answer is
    # found once; another profile (or another list of files) is asked anew
    import dataclasses

    from analyzer.analysis import profile_roots
    from analyzer.pipeline.scan import run_scan
    from tests.helpers import write_tree

    tree = write_tree(tmp_path / "t", {
        "depgraph.toml": 'name = "t"\ndescription = "t"\ndefault_drops = []\n\n'
                         '[features.f]\ndescription = "f"\n'
                         'paths = ["app/gone.py"]\nidentifiers = ["Here*"]\n',
        "app/__init__.py": "",
        "app/here.py": "class HereClass:\n    pass\n",
    })
    result = run_scan(tree, [])
    use, index, files = result.profile, result.index, list(result.files)
    found: list[object] = []
    compute = profile_roots._stale_feature_patterns

    def counting(*args: object) -> list[str]:
        found.append(args[0])
        return compute(*args)  # type: ignore[arg-type]

    profile_roots._stale_feature_patterns = counting  # type: ignore[assignment]
    try:
        index.tree_memo.pop("stale_feature_patterns", None)
        first = profile_roots.stale_feature_patterns(use, index, files)
        assert [s.split(": ", 1)[1] for s in first] == [
            "feature f: path app/gone.py matches no file (stale)"]
        first.append("a caller's change")  # (the memo hands out its own copy)
        again = profile_roots.stale_feature_patterns(use, index, files)
        assert again == [s for s in first if s != "a caller's change"] and len(found) == 1
        # a profile whose feature names the file that is there: its own answer
        assert use.profile is not None
        feature = dataclasses.replace(use.profile.features["f"], paths=["app/here.py"])
        other = dataclasses.replace(use, profile=dataclasses.replace(
            use.profile, features={"f": feature}))
        assert profile_roots.stale_feature_patterns(other, index, files) == []
        assert len(found) == 2
        # the same profile with a file fewer is another tree
        fewer = [f for f in files if f != "app/here.py"]
        profile_roots.stale_feature_patterns(use, index, fewer)
        assert len(found) == 3
    finally:
        profile_roots._stale_feature_patterns = compute  # type: ignore[assignment]


def test_never_delete_hits_of_a_rounds_graph_read_its_python_layer_once(
        use: ProfileUse, tmp_path: Path) -> None:
    from analyzer.analysis import profile_roots
    from analyzer.graph.python import EdgeMemo
    from analyzer.graph.rounds_graph import RoundGraph
    from tests.graph.test_edge_memo import _built

    base = module_index(tmp_path, {
        "pkg/__init__.py": "", "pkg/serve.py": "",
        "pkg/api.py": "def handle_get():\n    pass\n\n\ndef helper():\n    pass\n",
        "pkg/user.py": "from pkg.api import helper\n"})
    graphs, memo = RoundGraph(), EdgeMemo()
    graph = graphs.build(*_built(base, {}), memo).graph
    graph.add_node("file:csrc/keep/k.cu", kind="native_file", path="csrc/keep/k.cu")
    assert sorted(never_delete_nodes(use, graph)[0]) == [
        "file:csrc/keep/k.cu", "py:pkg.api:handle_get", "py:pkg.serve"]
    python_part = profile_roots._PYTHON_HITS[graph]
    # the next round: pkg.user's import folded (a patch), other nodes above the Python layer
    assert graphs.build(*_built(base, {"pkg.user": [(1, 1)]}), memo).graph is graph
    assert graphs.patched == 1 and "file:csrc/keep/k.cu" not in graph
    graph.add_node("cmake:csrc/keep/k.cmake", kind="cmake_file", path="csrc/keep/k.cmake")
    graph.add_node("file:csrc/other.cu", kind="native_file", path="csrc/other.cu")
    assert sorted(never_delete_nodes(use, graph)[0]) == [
        "cmake:csrc/keep/k.cmake", "py:pkg.api:handle_get", "py:pkg.serve"]
    assert profile_roots._PYTHON_HITS[graph] is python_part  # (its Python layer: not read again)
