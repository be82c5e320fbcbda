"""The graph's decisions (the report's "Profile decisions") list the folded branches in
module order, whatever order the folds' memo hands their regions in: the memo takes regions
over from an earlier fold record by a set of modules, whose order changes with the hash seed,
so two runs of one scan listed them differently."""

from __future__ import annotations

import pytest

from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "mini_sglang"


def test_fold_decisions_come_in_module_order(monkeypatch: pytest.MonkeyPatch) -> None:
    fold = Rounds._fold

    def reversed_fold(self, state, with_open=False):  # the regions in reverse module order
        regions = fold(self, state, with_open)
        return dict(sorted(regions.items(), reverse=True))

    monkeypatch.setattr(Rounds, "_fold", reversed_fold)
    result = run_scan(SAMPLE, ["llama"])
    index = result.index
    folded = [d["what"].rpartition(":")[0] for d in result.graph.graph["decisions"]
              if d["what"].rpartition(":")[0] in index.modules and "folds to" in d["reason"]]
    # the sample folds a branch in two modules: model_runner's `if is_npu():` and
    # server_args' `... if is_fa3_supported() else ...` (fa3 is dropped)
    assert folded == ["minisgl.srt.model_executor.model_runner", "minisgl.srt.server_args"]
