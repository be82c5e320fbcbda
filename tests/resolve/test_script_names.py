"""Files reached by how they run, not by a dotted name: the sample
``sample_repos/script_names`` (expectations from reading it)."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from analyzer.cli.verify import verify_command
from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES, apply_and_verify


def test_unnamed_tests_and_scripts_beside_a_namespace_package_go_with_what_they_use(
        tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "script_names", tree)
    result = run_scan(tree, [])
    assert {(d.path, d.start_line) for d in result.plan.deletions} == {
        # nothing live uses pkg.old
        ("pkg/old.py", None),
        # the test in tests/8-gpu/ (no identifier: no dotted name) imports it
        ("tests/8-gpu/test_old.py", None),
        # scripts/sync/utils.py uses it, and run.py imports that file as `utils` (the file
        # beside it, not the top-level namespace package utils/, which pkg.main uses)
        ("scripts/sync/utils.py", None),
        ("scripts/sync/run.py", None),
    }
    out = apply_and_verify(tmp_path, tree, result)
    assert out.exit_code == 0, out.output


def test_removing_what_an_unnamed_test_imports_is_a_break(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "script_names", tree)
    (tree / "pkg" / "old.py").unlink()
    (tree / "scripts" / "sync" / "utils.py").unlink()
    out = CliRunner().invoke(verify_command, [str(tree)])
    lines = out.stdout.splitlines()
    assert any(line.startswith("tests/8-gpu/test_old.py:1: import of pkg.old")
               for line in lines), out.output
    assert any(line.startswith("scripts/sync/run.py:1: from utils import FOLDERS")
               for line in lines), out.output
