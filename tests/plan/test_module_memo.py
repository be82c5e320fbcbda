"""A scan checks many plans; ``ModuleBreaks`` gives a module its breaks of an earlier check
again while every question its checks asked the view has the same answer, and runs them again
otherwise. Expectations from the tree below: each check with the memo finds what a fresh
check finds."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from analyzer.model import Deletion, Plan
from analyzer.pipeline.scan import run_scan
from analyzer.plan.check import check_plan, original_breaks
from analyzer.plan.check.module_memo import ModuleBreaks
from analyzer.result import ScanResult
from tests.helpers import write_tree

TREE = {
    "depgraph.toml": 'name = "t"\ndescription = "t"\nentry_points = ["app.main:main"]\n',
    "app/__init__.py": "",
    "app/main.py": ("import app.extra\nfrom app.util import helper\n\n\n"
                    "def main():\n    return helper(), app.extra.X\n"),
    "app/util.py": "def helper():\n    return 1\n\n\nY = 2\n",
    "app/extra.py": "X = 1\n",
    "app/other.py": "from app.util import Y\n\n\ndef use():\n    return Y\n",
    "app/lonely.py": "Z = 3\n",
}


def _deleted(result: ScanResult, *paths: str) -> Plan:
    return Plan([Deletion("delete_file", p, result.files[p].sha256, result.files[p].lines,
                          "test", category="python-file") for p in paths])


def _without_y(result: ScanResult) -> Plan:
    f = result.files["app/util.py"]
    return Plan([Deletion("delete_range", "app/util.py", f.sha256, 1, "test", 5, 5,
                          category="python-symbol")])


def _scan(tmp_path: Path) -> ScanResult:
    return run_scan(write_tree(tmp_path / "t", TREE), [], parse_all=True)


def _found(result: ScanResult, plan: Plan, memo: ModuleBreaks | None) -> set[tuple[str, int]]:
    return {(c.path, c.line) for c in check_plan(plan, result.index, result.sources, Counter(),
                                                 per_module=memo)}


def test_the_tree_breaks_nothing_before_pruning(tmp_path: Path) -> None:
    memo = ModuleBreaks()
    assert not original_breaks(_scan(tmp_path).index, memo)
    assert (memo.computed, memo.reused) == (6, 0)  # every module, once


def test_a_module_asking_the_same_questions_gets_its_breaks_again(tmp_path: Path) -> None:
    result = _scan(tmp_path)
    memo = ModuleBreaks()
    extra_gone = _deleted(result, "app/extra.py")
    assert _found(result, extra_gone, memo) == {("app/main.py", 1)} \
        == _found(result, extra_gone, None)
    assert (memo.computed, memo.reused) == (1, 0)  # app.main: the one module naming app.extra
    # app.lonely is named by nothing: the only affected module, app.main, asks what it asked
    both = _deleted(result, "app/extra.py", "app/lonely.py")
    assert _found(result, both, memo) == {("app/main.py", 1)}
    assert (memo.computed, memo.reused) == (1, 1)


def test_another_answer_runs_the_checks_again(tmp_path: Path) -> None:
    result = _scan(tmp_path)
    memo = ModuleBreaks()
    assert _found(result, _deleted(result, "app/extra.py"), memo) == {("app/main.py", 1)}
    # app.util loses Y: app.other's import of it breaks; app.main asks of app.util again
    # and of app.extra, which is back
    computed = memo.computed
    plan = _without_y(result)
    assert _found(result, plan, memo) == {("app/other.py", 1)} == _found(result, plan, None)
    # app.main and app.other, and app.util, which the plan edits
    assert memo.computed == computed + 3
    # and the first plan again: app.main's first record answers (a module keeps a few)
    reused = memo.reused
    assert _found(result, _deleted(result, "app/extra.py"), memo) == {("app/main.py", 1)}
    assert (memo.computed, memo.reused) == (computed + 3, reused + 1)
