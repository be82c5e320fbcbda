"""Plan stage, feature attribution (``analyzer/plan/features.py``): each deletion is named after
the dropped feature its file or symbol belongs to; a CMake block after the feature's target or
fetch it removes (the block holding the line that declares it)."""

from __future__ import annotations

import textwrap

import networkx as nx

from analyzer.config.profile import load_profile_text
from analyzer.model import Deletion, Plan
from analyzer.plan.features import attribute_deletions

FEATURES = load_profile_text(textwrap.dedent("""
    name = "t"

    [features.fa3]
    description = "fa3"
    paths = ["csrc/flash/**", "pkg/fa3_backend.py"]
    identifiers = ["FlashAttention*"]
    targets = ["flash_ops"]

    [features.mla]
    description = "mla"
    paths = ["pkg/mla/**"]
    fetches = ["repo-mla"]
    """).lstrip("\n"), "t.toml").features
DROPPED = [FEATURES["fa3"], FEATURES["mla"]]


def graph() -> nx.DiGraph:
    """CMakeLists.txt declares flash_ops on line 10, repo-mla on 20, common_ops on 30."""
    g = nx.DiGraph()
    g.add_node("target:flash_ops", kind="target", name="flash_ops", path="CMakeLists.txt",
               start_line=10)
    g.add_node("fetch:repo-mla", kind="fetch", name="repo-mla", path="CMakeLists.txt",
               start_line=20)
    g.add_node("target:common_ops", kind="target", name="common_ops", path="CMakeLists.txt",
               start_line=30)
    return g


def deletion(path: str, start: int | None = None, end: int | None = None, **kw) -> Deletion:
    kind = "delete_range" if start else "delete_file"
    return Deletion(kind, path, "0" * 64, 1, "dead", start, end, **kw)


def test_each_deletion_is_named_after_its_feature() -> None:
    plan = Plan([
        deletion("pkg/fa3_backend.py"),  # 0: fa3 by path
        deletion("csrc/flash/fwd.cu"),  # 1: fa3 by path glob
        deletion("pkg/layers.py", 3, 9, symbol="pkg.layers:FlashAttentionV3"),  # 2: identifier
        deletion("pkg/layers.py", 12, 15, symbol="pkg.layers:Triton"),  # 3: nothing
        deletion("pkg/mla/decode.py", 1, 4, symbol="pkg.mla.decode:run"),  # 4: mla by path
        deletion("CMakeLists.txt", 10, 14, category="cmake-block"),  # 5: flash_ops' block
        deletion("CMakeLists.txt", 18, 22, category="cmake-block"),  # 6: repo-mla's block
        deletion("CMakeLists.txt", 30, 31, category="cmake-block"),  # 7: common_ops: nothing
        deletion("CMakeLists.txt", 11, 11, category="native-file"),  # 8: not a block
        deletion("other.py", feature="from-before"),  # 9: a name it already has stays
    ])
    attribute_deletions(plan, graph(), DROPPED)
    assert [d.feature for d in plan.deletions] == [
        "fa3", "fa3", "fa3", "", "mla", "fa3", "mla", "", "", "from-before"]
    # only the feature changes
    assert [(d.path, d.start_line, d.symbol) for d in plan.deletions][2] == (
        "pkg/layers.py", 3, "pkg.layers:FlashAttentionV3")


def test_the_first_dropped_feature_claiming_a_path_wins() -> None:
    both = load_profile_text(textwrap.dedent("""
        [features.a]
        description = "a"
        paths = ["shared/**"]

        [features.b]
        description = "b"
        paths = ["shared/x.py"]
        """).lstrip("\n"), "t.toml").features
    plan = Plan([deletion("shared/x.py")])
    attribute_deletions(plan, nx.DiGraph(), [both["b"], both["a"]])
    assert plan.deletions[0].feature == "b"


def test_no_dropped_feature_changes_nothing() -> None:
    plan = Plan([deletion("pkg/fa3_backend.py")])
    before = list(plan.deletions)
    attribute_deletions(plan, graph(), [])
    assert plan.deletions == before
