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
    for f in result.features:
        removable = sum(1 for i in f.items if i.status == "removable")
        row = (f"| {f.name} | {f.files_removable} | {f.lines_removable} | {removable} | "
               f"{len(f.blocked)} |")
        assert row in md.splitlines()
    # fa3 stays blocked: server_args.py imports mini_kernel.flash_attn
    assert "<details><summary>`mini_kernel.flash_attn` (module) is blocked</summary>" in md
    assert "-> mini_kernel.flash_attn (sgl-kernel/python/mini_kernel/flash_attn.py)" in md
    # build: flash_ops (CMakeLists.txt) and flashmla_ops (cmake/flashmla.cmake) are dead
    assert "| flash_ops | sgl-kernel/CMakeLists.txt |" in md
    assert "| flashmla_ops | sgl-kernel/cmake/flashmla.cmake |" in md
    assert f"Translation units removed: {result.native_summary.tus_removed}" in md


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
    assert len(run["results"]) == len(result.plan.deletions)
    for res, d in zip(run["results"], result.plan.deletions, strict=True):
        assert res["level"] == "note"
        assert res["ruleId"] == d.category
        assert rule_ids[res["ruleIndex"]] == res["ruleId"]
        assert res["message"]["text"] == d.reason
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == d.path
        region = loc["region"]
        assert 1 <= region["startLine"] <= region["endLine"]
    # a whole-file deletion spans the file: llama.py has 16 lines
    llama = next(r for r in run["results"] if r["locations"][0]["physicalLocation"]
                 ["artifactLocation"]["uri"] == "python/minisgl/srt/models/llama.py")
    assert llama["ruleId"] == "python-file"
    assert llama["locations"][0]["physicalLocation"]["region"] == {"startLine": 1,
                                                                   "endLine": 16}


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
    assert render(result, "html")["report.html"].lower().startswith(b"<!doctype html>")


def test_a_shared_chain_prefix_is_shown_once() -> None:
    from analyzer.outputs.manifest import shared_prefix

    a = ["root r", "  -> m1", "  -> m2", "  -> x"]
    b = ["root r", "  -> m1", "  -> m2", "  -> y", "  -> z"]
    c = ["root s", "  -> y"]
    assert shared_prefix([a, b, c]) == [
        a, ["(as above, 3 steps)", "  -> y", "  -> z"], c]
