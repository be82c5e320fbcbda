"""``depgraph graph``: the graph of mini_sglang exported live only or whole, to a file or stdout."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner

from analyzer.cli.graph import graph_command
from analyzer.pipeline.scan import ScanResult, run_scan
from tests.helpers import MINI_SGLANG


@pytest.fixture(scope="module")
def result() -> ScanResult:
    return run_scan(MINI_SGLANG, ["deepseek_v2"])


def test_graph_command_live_only(tmp_path: Path, result: ScanResult) -> None:
    out = tmp_path / "g.json"
    run = CliRunner().invoke(graph_command, [str(MINI_SGLANG), "--roots", "deepseek_v2",
                                             "--format", "json", "--live-only",
                                             "--out", str(out)])
    assert run.exit_code == 0, run.output
    g = nx.node_link_graph(json.loads(out.read_text()), edges="edges")
    assert set(g.nodes) == result.liveness.live
    # llama.py is dead: not exported; deepseek_v2 is the root
    assert "py:minisgl.srt.models.llama" not in g
    assert "py:minisgl.srt.models.deepseek_v2" in g


def test_graph_command_stdout_mermaid() -> None:
    run = CliRunner().invoke(graph_command, [str(MINI_SGLANG), "--roots", "deepseek_v2",
                                             "--format", "mermaid"])
    assert run.exit_code == 0, run.output
    assert run.stdout.startswith("graph LR\n")


def _graph(*args: str) -> nx.DiGraph:
    run = CliRunner().invoke(graph_command, [str(MINI_SGLANG), "--roots", "deepseek_v2",
                                             "--format", "json", *args])
    assert run.exit_code == 0, run.output
    return nx.node_link_graph(json.loads(run.stdout), edges="edges")


def test_graph_focus_cuts_a_neighbourhood(result: ScanResult) -> None:
    g = _graph("--focus", "mini_kernel.flash_attn", "--depth", "1")
    centre = "py:mini_kernel.flash_attn"
    assert set(g.nodes) == {centre, *result.graph.successors(centre),
                            *result.graph.predecessors(centre)}
    # utils/fa3_check.py imports it: one step; the model, far away, is not there
    assert "py:minisgl.srt.utils.fa3_check" in g
    assert "py:minisgl.srt.models.deepseek_v2" not in g


def test_graph_feature_is_its_items_and_blockers(result: ScanResult) -> None:
    g = _graph("--feature", "fa3")
    fa3 = next(f for f in result.features if f.name == "fa3")
    # fa3's items and the one module whose edges block it (utils/fa3_check.py)
    assert set(g.nodes) == {i.node for i in fa3.items} | {"py:minisgl.srt.utils.fa3_check"}
    bad = CliRunner().invoke(graph_command, [str(MINI_SGLANG), "--feature", "nosuch"])
    assert bad.exit_code == 3 and "not a dropped feature" in bad.stderr
