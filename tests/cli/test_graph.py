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
