"""The soundness rounds build a plan per round; ``PlanMemo`` gives a live module its share
of the last plan again while every question it asked (liveness, graph membership, folds,
re-exports, kept imports) has the same answer. Expectations from the tree below."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from analyzer.analysis.liveness import Liveness
from analyzer.pipeline.scan import run_scan
from analyzer.plan.python import PlanMemo, build_plan
from analyzer.result import ScanResult
from tests.helpers import write_tree

TREE = {
    "depgraph.toml": 'name = "t"\ndescription = "t"\nentry_points = ["app.main:main"]\n',
    "app/__init__.py": "",
    "app/main.py": "from app.util import used\n\n\ndef main():\n    return used()\n",
    # `unused` is dead, and `os` is read only there: both go
    "app/util.py": ("import os\n\n\ndef used():\n    return 1\n\n\n"
                    "def unused():\n    return os.sep\n"),
}


def _scan(tmp_path: Path) -> ScanResult:
    return run_scan(write_tree(tmp_path / "t", TREE), [])


def _plan(result: ScanResult, live: Liveness, memo: PlanMemo | None = None,
          keep: frozenset[tuple[str, int]] = frozenset()) -> set[tuple[str, str, int | None]]:
    plan = build_plan(result.graph, live, result.index, result.files, set(result.files), keep,
                      memo=memo)
    return {(d.kind, d.path, d.start_line) for d in plan.deletions}


def _with_live(live: Liveness, node: str) -> Liveness:
    return dataclasses.replace(live, live={*live.live, node})


def test_same_answers_give_each_share_again(tmp_path: Path) -> None:
    result = _scan(tmp_path)
    memo = PlanMemo()
    expected = {("delete_range", "app/util.py", 1), ("delete_range", "app/util.py", 8)}
    assert _plan(result, result.liveness, memo) == expected
    assert (memo.reused, memo.computed) == (0, 3)  # app, app.main, app.util: all live
    assert _plan(result, result.liveness, memo) == expected
    assert (memo.reused, memo.computed) == (3, 0)


def test_a_node_turning_live_recomputes_the_module_that_asked(tmp_path: Path) -> None:
    result = _scan(tmp_path)
    memo = PlanMemo()
    _plan(result, result.liveness, memo)
    live = _with_live(result.liveness, "py:app.util:unused")
    assert _plan(result, live, memo) == set() == _plan(result, live)  # the same as fresh
    assert (memo.reused, memo.computed) == (2, 1)
    # and back: the share of the first liveness again
    assert _plan(result, result.liveness, memo) == {("delete_range", "app/util.py", 1),
                                                    ("delete_range", "app/util.py", 8)}
    assert (memo.reused, memo.computed) == (2, 1)


def test_a_kept_import_recomputes_its_module(tmp_path: Path) -> None:
    result = _scan(tmp_path)
    memo = PlanMemo()
    _plan(result, result.liveness, memo)
    keep = frozenset({("app/util.py", 1)})
    assert _plan(result, result.liveness, memo, keep) == {("delete_range", "app/util.py", 8)}
    assert (memo.reused, memo.computed) == (2, 1)
