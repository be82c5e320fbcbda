"""Output formats: Markdown summary and feature description, SARIF, graph exports (the
``depgraph graph`` command: tests/cli/test_graph.py)."""

from __future__ import annotations

import io
import json
import re

import networkx as nx
import pytest

from analyzer import __version__
from analyzer.outputs.graph_export import export_graph
from analyzer.outputs.markdown import render_feature_markdown, render_markdown
from analyzer.outputs.sarif import render_sarif
from analyzer.pipeline.scan import ScanResult, run_scan
from tests.helpers import MINI_SGLANG


@pytest.fixture(scope="module")
def result() -> ScanResult:
    return run_scan(MINI_SGLANG, ["deepseek_v2"])


def test_markdown_feature_table_matches_result(result: ScanResult) -> None:
    md = render_markdown(result)
    assert md.startswith("## depgraph: dead-code report")
    # the sample's profile drops fa3, flashmla and ascend (depgraph.toml default_drops)
    assert [f.name for f in result.features] == ["fa3", "flashmla", "ascend"]
    lines = md.splitlines()
    # mini_sglang (tests/e2e/test_scope.py): 214 lines, 165 of the dropped features' shares
    # (fa3 51: its 50 and server_args.py's import only its fold read; flashmla 101; ascend 13:
    # its 8, load_platform_ops' 4 and model_runner.py's is_npu import, which run once ascend
    # is kept), 49 other dead code; 43 deletions, among them layernorm.py's `_is_npu` import
    # (0 lines): its `if _is_npu:` clauses fold away (promote_elif, delete), so nothing reads
    # it any more
    assert "**Removable: 214 lines** (14 files, 43 deletions): the dropped features take " \
        "**165 lines** (10 files); **49 lines** (4 files) are other dead code: code the " \
        "roots do not reach (other models, unused helpers)." in lines
    table = lines[lines.index("### Dropped features") + 2:]
    # TU x arch: "?" where there are TUs (the sample's CMake states no architecture list)
    assert table[:7] == [
        "| feature | files | lines | TUs | TU x arch | blocked | top blocker |",
        "|---|---:|---:|---:|---:|---:|---|",
        "| fa3 | 3 | 51 | 2 | ? | 2 | `python/minisgl/srt/utils/fa3_check.py:8`: remove the "
        "use of mini_kernel.flash_attn:is_fa3_supported |",
        "| flashmla | 6 | 101 | 4 | ? | 0 |  |",
        "| ascend | 1 | 13 | 0 | 0 | 0 |  |",
        "| **dropped features** | **10** | **165** | | | | |",
        "| other dead code | 4 | 49 | | | | |"]
    # the blockers lead, before the other lists; the import (line 5) frees nothing alone
    assert md.index("### What blocks them") < md.index("### Other dead code")
    assert "+ 1 more place in live code (freeing nothing alone): " \
        "[summary-fa3.md](summary-fa3.md)" in lines
    # build: flash_ops (CMakeLists.txt) and flashmla_ops (cmake/flashmla.cmake) are dead
    assert "| flash_ops | sgl-kernel/CMakeLists.txt | 2 | 0 |" in md
    assert "| flashmla_ops | sgl-kernel/cmake/flashmla.cmake | 2 | 2 |" in md
    assert f"Translation units removed: {result.native_summary.tus_removed}" in md
    assert "[summary-flashmla.md](summary-flashmla.md)" in md


def test_markdown_stays_under_githubs_limit(result: ScanResult,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the size: longer lists are cut first, the headline and table stay."""
    import analyzer.outputs.markdown as markdown

    full = render_markdown(result)
    monkeypatch.setattr(markdown, "LIMIT", len(full) - 200)
    shorter = render_markdown(result)
    assert len(shorter) <= len(full) - 200
    assert "| fa3 | 3 | 51 | 2 | ? | 2 |" in shorter and "**Removable: 214 lines**" in shorter
    assert "more files (report.html)" in shorter  # the other dead code's file list was cut
    monkeypatch.setattr(markdown, "LIMIT", 500)
    tiny = render_markdown(result)
    assert len(tiny) <= 500 and tiny.endswith("see report.html)\n")
    assert len(markdown.render_feature_markdown(result, "fa3")) <= 500


def test_feature_markdown(result: ScanResult) -> None:
    fa3 = next(f for f in result.features if f.name == "fa3")
    md = render_feature_markdown(result, "fa3")
    assert md.startswith("## Drop feature `fa3`")
    assert f"- files removed: {fa3.files_removable}" in md
    assert f"- lines removed: {fa3.lines_removable}" in md
    assert f"- deletions: {sum(1 for d in result.plan.deletions if d.feature == 'fa3')}" in md
    # flash_ops compiles csrc/flash_extension.cc and csrc/flash/flash_fwd.cu
    assert "- CUDA/C++ translation units removed from the build: 2" in md
    assert "| python/minisgl/srt/layers/attention/flashattention_backend.py | 11 |" in md
    assert "### Still blocked" in md
    ascend = render_feature_markdown(result, "ascend")
    assert "Nothing of this feature stays blocked." in ascend
    with pytest.raises(KeyError):
        render_feature_markdown(result, "nosuch")


def test_sarif_structure(result: ScanResult) -> None:
    sarif = render_sarif(result)
    json.dumps(sarif)  # serialisable
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"].endswith("sarif-2.1.0.json")
    run = sarif["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "depgraph"
    assert driver["version"] == __version__
    rule_ids = [r["id"] for r in driver["rules"]]
    for res in run["results"]:
        assert rule_ids[res["ruleIndex"]] == res["ruleId"]
    # not a note per deletion: fa3's two blockers (utils/fa3_check.py:8 and :5) and the
    # one behaviour decision (server_args.py:11: the arm that selected 'fa3'), at their lines
    got = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]
            ["uri"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
           for r in run["results"]]
    assert got == [
        ("blocked-by-code", "warning", "python/minisgl/srt/utils/fa3_check.py", 8),
        ("blocked-by-code", "warning", "python/minisgl/srt/utils/fa3_check.py", 5),
        ("behaviour-decision", "note", "python/minisgl/srt/server_args.py", 11)]
    assert run["results"][0]["message"]["text"].startswith(
        "Dropped feature fa3 is blocked here: remove the use of "
        "mini_kernel.flash_attn:is_fa3_supported at python/minisgl/srt/utils/fa3_check.py:8")
    props = run["properties"]
    assert (props["lines_removable"], props["lines_features"], props["lines_other"]) == \
        (214, 165, 49)
    assert props["deletions_by_category"]["python-file"]["count"] == sum(
        1 for d in result.plan.deletions if d.category == "python-file")


def test_sarif_leads_with_the_default_that_selects_a_key() -> None:
    from tests.helpers import SAMPLES

    run = render_sarif(run_scan(SAMPLES / "blocker_story", []))["runs"][0]
    first = run["results"][0]
    assert first["ruleId"] == "blocked-by-default" and first["level"] == "warning"
    assert first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
        "app/server_args.py"
    tests = [r for r in run["results"] if r["ruleId"] == "blocked-by-test"]
    assert [(r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
            for r in tests] == [("note", "tests/test_fa3.py")]


def test_dot_export(result: ScanResult) -> None:
    dot = export_graph(result.graph, "dot")
    assert dot.startswith("digraph depgraph {")
    edges = re.findall(r'^\s*"(?:[^"\\]|\\.)*" -> "(?:[^"\\]|\\.)*"', dot, re.M)
    assert len(edges) == result.graph.number_of_edges()
    assert '"py:minisgl.srt.models.deepseek_v2" -> "py:minisgl.srt.layers.attention.mla"' in dot


def test_graphml_export_rereads(result: ScanResult) -> None:
    g = nx.read_graphml(io.StringIO(export_graph(result.graph, "graphml")))
    assert g.number_of_nodes() == result.graph.number_of_nodes()
    assert g.number_of_edges() == result.graph.number_of_edges()
    assert g.nodes["target:common_ops"]["kind"] == "target"


def test_json_export_round_trips(result: ScanResult) -> None:
    g = nx.node_link_graph(json.loads(export_graph(result.graph, "json")), edges="edges")
    assert set(g.nodes) == set(result.graph.nodes)
    assert set(g.edges) == set(result.graph.edges)
    edge = g.edges["py:minisgl.srt.models.deepseek_v2", "py:minisgl.srt.layers.attention.mla"]
    assert edge["kind"] == "import"
    assert edge["line"] == 4


def test_mermaid_export(result: ScanResult) -> None:
    text = export_graph(result.graph, "mermaid")
    lines = text.splitlines()
    assert lines[0] == "graph LR"
    assert sum(1 for line in lines if "-->" in line) == result.graph.number_of_edges()
    ids = re.findall(r"^\s+(\S+)\[", text, re.M)
    assert len(ids) == result.graph.number_of_nodes()
    assert all(re.fullmatch(r"n\d+", i) for i in ids)


def test_unknown_format(result: ScanResult) -> None:
    with pytest.raises(ValueError):
        export_graph(result.graph, "svg")


def test_render_dispatches_each_format_to_its_files() -> None:
    from analyzer.outputs.render import FILE_NAMES, render
    from analyzer.pipeline.scan import run_scan
    from tests.helpers import MINI_SGLANG

    result = run_scan(MINI_SGLANG, ["deepseek_v2"])
    assert set(render(result, "json")) == {FILE_NAMES["json"]}
    assert set(render(result, "sarif")) == {FILE_NAMES["sarif"]}
    # md: the summary and one change description per dropped feature (fa3, flashmla, ascend)
    assert set(render(result, "md")) == {"summary.md", "summary-fa3.md", "summary-flashmla.md",
                                         "summary-ascend.md"}
    assert render(result, "html")["report.html"].data().lower().startswith(b"<!doctype html>")


def test_a_shared_chain_prefix_is_shown_once() -> None:
    from analyzer.outputs.manifest import shared_prefix

    a = ["root r", "  -> m1", "  -> m2", "  -> x"]
    b = ["root r", "  -> m1", "  -> m2", "  -> y", "  -> z"]
    c = ["root s", "  -> y"]
    assert shared_prefix([a, b, c]) == [
        a, ["(as above, 3 steps)", "  -> y", "  -> z"], c]
