"""Verify stage, at scan time (``analyzer/verify/baseline.py``): what the manifest records of the
original tree for ``depgraph verify`` -- the problems it already has, the facts of each Python
file the plan edits (not of files it deletes), and its build. Expectations come from the small
tree below (line numbers counted in pkg/main.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.pipeline.scan import run_scan
from analyzer.verify.baseline import verify_baseline
from analyzer.verify.native import native_baseline
from tests.helpers import write_tree

MAIN = ("from pkg.probe import is_npu\n"   # 1
        "\n"                               # 2
        "\n"                               # 3
        "def run():\n"                     # 4
        "    if is_npu():\n"               # 5
        "        from pkg.npu import op\n"  # 6
        "    else:\n"                      # 7
        "        from pkg.cuda import op\n"  # 8
        "    return op()\n"                # 9
        "\n"                               # 10
        "\n"                               # 11
        "def dead():\n"                    # 12
        "    return 1\n")                  # 13

TREE = {
    "depgraph.toml": 'name = "t"\n[constants]\n"pkg.probe.is_npu" = false\n',
    "pkg/__init__.py": "",
    "pkg/probe.py": "def is_npu():\n    return False\n",
    "pkg/main.py": MAIN,
    "pkg/npu.py": "def op():\n    return 1\n",
    "pkg/cuda.py": "def op():\n    return 2\n",
}


@pytest.mark.parametrize(("use_profile", "deleted", "op_bindings"), [
    # is_npu() folds to False: the `if` (5-7) goes and pkg/npu.py with it; so does its
    # condition, the only read of is_npu: line 1's import goes, and pkg/probe.py, which
    # nothing else imports, with it; of run()'s two bindings of `op`, only line 8's runs
    pytest.param(True, ["pkg/npu.py", "pkg/probe.py"], 1,
                 id="folded-branch-binding-does-not-count"),
    # without the profile both arms may run: both bindings count, npu.py stays
    pytest.param(False, [], 2, id="no-fold-both-bindings-count"),
])
def test_baseline_of_the_edited_files(tmp_path: Path, use_profile: bool, deleted: list[str],
                                      op_bindings: int) -> None:
    root = write_tree(tmp_path / "repo", TREE)
    result = run_scan(root, ["pkg.main:run"], use_default_roots=False, use_profile=use_profile)
    assert sorted(d.path for d in result.plan.deletions if d.kind == "delete_file") == deleted
    baseline = verify_baseline(result)
    assert baseline["verify_baseline"] == []  # the original tree holds together
    # main.py is edited (dead() goes); a deleted file has nothing to compare with
    assert baseline["verify_baseline_python"] == {"pkg/main.py": {
        "undefined": {},
        "names": ["dead", "is_npu", "run"],
        "binding_counts": {"dead": 1, "is_npu": 1, "run": 1},
        "classes": {},
        "raises": 0,
        "bindings": {"run": {"op": op_bindings}},
    }}
    native = baseline["verify_baseline_native"]
    assert native == native_baseline(result)
    assert (native["ops"], native["targets"], native["fetches"]) == ([], [], [])


def test_problems_the_original_already_has_are_recorded(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "repo", {
        "pkg/__init__.py": "",
        "pkg/main.py": "import pkg.missing\n\n\ndef run():\n    return 1\n",
    })
    result = run_scan(root, ["pkg.main:run"], use_default_roots=False, use_profile=False)
    problems = verify_baseline(result)["verify_baseline"]
    assert len(problems) == 1 and problems[0].startswith("pkg/main.py:1: ")
    assert "pkg.missing" in problems[0]
