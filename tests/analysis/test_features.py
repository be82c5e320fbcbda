"""Analysis stage, dropped features (``analyzer/analysis/features.py``): which feature an item
belongs to (targets, fetches, extension modules by name; files by path glob; definitions by path
or identifier pattern; a kept feature's claim wins), and each item's status after liveness
(removable, or blocked with the chain that keeps it)."""

from __future__ import annotations

import textwrap
from typing import Any

import networkx as nx
import pytest

from analyzer.analysis.features import analyze_features, feature_nodes, feature_of_node
from analyzer.analysis.liveness import compute_liveness
from analyzer.config.profile import load_profile_text
from analyzer.config.types import Feature
from analyzer.model import Deletion, Plan

PROFILE = textwrap.dedent("""
    name = "t"

    [features.fa3]
    description = "FlashAttention 3"
    paths = ["csrc/flash/**", "pkg/fa3_backend.py"]
    identifiers = ["FlashAttention*"]
    targets = ["flash_ops"]
    fetches = ["repo-fa3"]
    extension_modules = ["pkg.flash_ops"]

    [features.mla]
    description = "FlashMLA"
    paths = ["pkg/mla/**"]

    [features.mla_common]
    description = "kept: the MLA code every backend shares"
    paths = ["pkg/mla/common.py"]
    """).lstrip("\n")


@pytest.fixture(scope="module")
def features() -> dict[str, Feature]:
    return load_profile_text(PROFILE, "t.toml").features


@pytest.mark.parametrize(("data", "expected"), [
    pytest.param({"kind": "target", "name": "flash_ops"}, "fa3", id="target"),
    pytest.param({"kind": "target", "name": "common_ops"}, None, id="other-target"),
    pytest.param({"kind": "fetch", "name": "repo-fa3"}, "fa3", id="fetch"),
    pytest.param({"kind": "extension", "module": "pkg.flash_ops"}, "fa3", id="extension"),
    pytest.param({"kind": "module", "path": "pkg/fa3_backend.py"}, "fa3", id="module-path"),
    pytest.param({"kind": "native_file", "path": "csrc/flash/fwd.cu"}, "fa3", id="native-file"),
    pytest.param({"kind": "cmake_file", "path": "csrc/flash/flash.cmake"}, "fa3",
                 id="cmake-file"),
    pytest.param({"kind": "symbol", "path": "pkg/layers.py", "name": "FlashAttentionV3"}, "fa3",
                 id="symbol-by-identifier"),
    pytest.param({"kind": "symbol", "path": "pkg/mla/decode.py", "name": "run"}, "mla",
                 id="symbol-by-path"),
    pytest.param({"kind": "symbol", "path": "pkg/layers.py", "name": "Triton"}, None,
                 id="symbol-of-no-feature"),
    # identifiers name definitions, not modules
    pytest.param({"kind": "module", "path": "pkg/FlashAttention.py"}, None,
                 id="identifiers-are-no-paths"),
    # a name (target, fetch) is matched by name, not by path
    pytest.param({"kind": "target", "name": "t", "path": "csrc/flash/CMakeLists.txt"}, None,
                 id="target-by-name-only"),
])
def test_feature_of_node(features: dict[str, Feature], data: dict[str, Any],
                         expected: str | None) -> None:
    dropped = [features["fa3"], features["mla"]]
    assert feature_of_node(data, dropped) == expected


def test_a_kept_feature_claiming_an_item_keeps_it(features: dict[str, Feature]) -> None:
    common = {"kind": "module", "path": "pkg/mla/common.py"}
    assert feature_of_node(common, [features["mla"]]) == "mla"
    assert feature_of_node(common, [features["mla"]], [features["mla_common"]]) is None
    decode = {"kind": "module", "path": "pkg/mla/decode.py"}
    assert feature_of_node(decode, [features["mla"]], [features["mla_common"]]) == "mla"


def graph() -> nx.DiGraph:
    """server imports fa3_backend (live, so blocked); mla/decode.py is imported by nothing."""
    g = nx.DiGraph()
    for module, path in [("pkg.server", "pkg/server.py"), ("pkg.fa3_backend",
                                                          "pkg/fa3_backend.py"),
                         ("pkg.mla.decode", "pkg/mla/decode.py")]:
        g.add_node(f"py:{module}", kind="module", module=module, path=path)
    g.add_node("target:flash_ops", kind="target", name="flash_ops", path="CMakeLists.txt")
    g.add_edge("py:pkg.server", "py:pkg.fa3_backend", kind="import", file="pkg/server.py",
               line=2)
    return g


def test_feature_nodes(features: dict[str, Feature]) -> None:
    assert feature_nodes(graph(), [features["fa3"], features["mla"]]) == {
        "py:pkg.fa3_backend": "fa3", "target:flash_ops": "fa3", "py:pkg.mla.decode": "mla"}


def test_feature_nodes_answers_as_feature_of_node_per_item(features: dict[str, Feature]
                                                          ) -> None:
    """Many items of one path and one name (a file's symbols): each answered as alone, a
    kept feature's claim included."""
    g = nx.DiGraph()
    items = {
        "py:pkg.mla.common": {"kind": "module", "path": "pkg/mla/common.py"},
        "py:pkg.mla.common:run": {"kind": "symbol", "path": "pkg/mla/common.py",
                                  "name": "run"},
        "py:pkg.mla.decode": {"kind": "module", "path": "pkg/mla/decode.py"},
        "py:pkg.mla.decode:run": {"kind": "symbol", "path": "pkg/mla/decode.py",
                                  "name": "run"},
        "py:pkg.mla.decode:FlashAttentionMLA": {"kind": "symbol", "path": "pkg/mla/decode.py",
                                               "name": "FlashAttentionMLA"},
        "py:pkg.layers:FlashAttentionMLA": {"kind": "symbol", "path": "pkg/layers.py",
                                            "name": "FlashAttentionMLA"},
        "py:pkg.layers:Triton.FlashAttentionRun": {"kind": "method", "path": "pkg/layers.py",
                                                   "name": "Triton.FlashAttentionRun",
                                                   "method": "FlashAttentionRun"},
        "py:pkg.layers:run": {"kind": "symbol", "path": "pkg/layers.py", "name": "run"},
        "target:flash_ops": {"kind": "target", "name": "flash_ops", "path": "pkg/mla/x"},
    }
    for node, data in items.items():
        g.add_node(node, **data)
    dropped, kept = [features["mla"], features["fa3"]], [features["mla_common"]]
    assert feature_nodes(g, dropped, kept) == {
        "py:pkg.mla.decode": "mla", "py:pkg.mla.decode:run": "mla",
        "py:pkg.mla.decode:FlashAttentionMLA": "mla", "py:pkg.layers:FlashAttentionMLA": "fa3",
        "py:pkg.layers:Triton.FlashAttentionRun": "fa3", "target:flash_ops": "fa3"}
    for with_kept in ([], kept):
        assert feature_nodes(g, dropped, with_kept) == {
            n: name for n, d in items.items() if (name := feature_of_node(d, dropped, with_kept))}


def test_items_are_removable_or_blocked_with_their_chain(features: dict[str, Feature]) -> None:
    g = graph()
    dropped = [features["fa3"], features["mla"]]
    live = compute_liveness(g, ["py:pkg.server"])
    plan = Plan([
        Deletion("delete_file", "pkg/mla/decode.py", "0" * 64, 40, "dead", feature="mla"),
        Deletion("delete_range", "CMakeLists.txt", "0" * 64, 3, "dead", 5, 7, feature="fa3"),
        Deletion("delete_range", "pkg/other.py", "0" * 64, 9, "dead", 1, 9)])
    fa3, mla = analyze_features(g, live, dropped, feature_nodes(g, dropped), plan)
    assert (fa3.name, fa3.description) == ("fa3", "FlashAttention 3")
    assert [(i.label, i.kind, i.status) for i in fa3.items] == [
        ("pkg.fa3_backend", "module", "blocked"), ("flash_ops", "target", "removable")]
    assert fa3.blocked[0].chain == [
        "root pkg.server (pkg/server.py)",
        "  -> pkg.fa3_backend (pkg/fa3_backend.py)  [import at pkg/server.py:2]"]
    assert fa3.removable[0].chain == []
    assert (fa3.files_removable, fa3.lines_removable) == (0, 3)
    assert [(i.label, i.status) for i in mla.items] == [("pkg.mla.decode", "removable")]
    assert (mla.files_removable, mla.lines_removable) == (1, 40)
