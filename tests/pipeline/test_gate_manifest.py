"""Pipeline, the gate's manifest: the manifest the gate applies to its copy and verifies is
the scan's, without the ``why`` section (only ``depgraph why --manifest`` reads it, and the
roots' reasons it holds are not known at the gate); the live tree is made once, for the
outputs."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from analyzer.codemod.manifest_check import validate
from analyzer.outputs import why_index
from analyzer.pipeline.gate import CopyToVerify
from analyzer.pipeline.scan import run_scan
from analyzer.pipeline.verify import manifest_of
from tests.helpers import SAMPLES


def test_the_gate_verifies_the_manifest_without_its_why_section(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # value_selection drops a feature: the plan deletes and edits files, so the gate
    # applies its manifest to a copy (in this process: one job)
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "value_selection", tree)
    verified: list[dict[str, Any]] = []
    problems = CopyToVerify.problems

    def recording(self: CopyToVerify, settings: Any) -> Any:
        verified.append(self.manifest)
        return problems(self, settings)

    made: list[object] = []
    live_tree = why_index._live_tree

    def counting(result: Any) -> dict[str, Any]:
        made.append(result)
        return live_tree(result)

    monkeypatch.setattr(CopyToVerify, "problems", recording)
    monkeypatch.setattr(why_index, "_live_tree", counting)
    result = run_scan(tree, [])
    assert result.plan.deletions and result.verified is not None
    assert len(verified) == 1
    gated = verified[0]
    assert "why" not in gated and validate(gated) == []
    assert made == []  # the gate made no live tree
    written = manifest_of(result)
    assert len(made) == 1 and set(written["why"]) >= {"files", "reasons", "rows"}
    # what apply and verify read of it is the manifest written: the same tree, options,
    # baseline and edits (the features each deletion goes with are labelled after the gate)
    read = ["root", "tree", "options", *(k for k in written if k.startswith("verify_baseline"))]
    assert len(read) > 3 and [gated[k] for k in read] == [written[k] for k in read]

    def edits(manifest: dict[str, Any]) -> list[tuple[object, ...]]:
        return [tuple(d.get(k) for k in ("kind", "path", "sha256", "start_line", "end_line",
                                          "names")) for d in manifest["deletions"]]

    assert edits(gated) == edits(written) and len(edits(gated)) >= 2
