"""Test infrastructure is not a test of dead code (issue 48): runners, suite lists, conftests
and CI scripts stay and lose the entries naming tests that go; a string naming a file of the
tree by path is a read; a script of a regular package imports the file beside it. Sample:
``sample_repos/test_infra`` (its depgraph.toml says what it holds); expectations come from
reading it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from analyzer.cli.verify import verify_command
from analyzer.codemod.apply import run_apply
from analyzer.model import Deletion
from analyzer.pipeline.scan import ScanResult, run_scan
from analyzer.pipeline.verify import manifest_of
from tests.helpers import SAMPLES, tampered_manifest

SAMPLE = SAMPLES / "test_infra"


def scanned(tmp_path: Path) -> tuple[Path, ScanResult]:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE, tree)
    return tree, run_scan(tree, [])


def applied_and_verified(tmp_path: Path, tree: Path, manifest: dict[str, object],
                         feature: str | None = None) -> tuple[int, str]:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    run_apply(path, tree, write=True, feature=feature, patch_out=tmp_path / "undo.patch")
    out = CliRunner().invoke(verify_command, [str(tree), "--before", str(path)])
    return out.exit_code, out.output


def test_the_runner_stays_and_loses_the_entries_of_tests_that_go(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path)
    # npu's fold of serve()'s `if is_npu():` (5-8) frees the NPU backend and the probe (and
    # its import); the NPU test (the npu feature's path) and the test of the dead
    # app/legacy.py go, and with them their entries in test/run_suite.py (lines 8 and 11);
    # the runner, the CI helper it imports and the debug helper that one uses stay
    assert {(d.path, d.kind, d.start_line, d.names) for d in result.plan.deletions} == {
        ("app/legacy.py", "delete_file", None, ()),
        ("app/npu_backend.py", "delete_file", None, ()),
        ("app/platform.py", "delete_file", None, ()),
        ("app/server.py", "delete_range", 1, ()),
        ("app/server.py", "fold_branch", 5, ()),
        ("test/npu/test_npu_ops.py", "delete_file", None, ()),
        ("test/unit/test_legacy.py", "delete_file", None, ()),
        ("test/run_suite.py", "remove_list_element", 8, ('TestFile("npu/test_npu_ops.py", 30)',)),
        ("test/run_suite.py", "remove_list_element", 11, ("unit/test_legacy.py",)),
    }
    assert result.root_reasons["py:test.run_suite"].startswith("test infrastructure")
    code, output = applied_and_verified(tmp_path, tree, manifest_of(result))
    assert code == 0, output
    runner = (tree / "test" / "run_suite.py").read_text()
    assert 'TestFile("unit/test_server.py", 5)' in runner
    assert "npu/test_npu_ops.py" not in runner and "unit/test_legacy.py" not in runner
    assert (tree / "app" / "test" / "ci" / "ci_utils.py").is_file()
    assert (tree / "app" / "debug" / "coredump.py").is_file()


def test_one_feature_takes_its_tests_entries_along(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path)
    code, output = applied_and_verified(tmp_path, tree, manifest_of(result), feature="npu")
    assert code == 0, output
    runner = (tree / "test" / "run_suite.py").read_text()
    assert "npu/test_npu_ops.py" not in runner and "unit/test_legacy.py" in runner
    assert not (tree / "test" / "npu" / "test_npu_ops.py").exists()


def test_a_path_naming_a_file_of_the_tree_is_a_read(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path)
    # case_parser.py reads test/run_suite.py by its path: deleting the runner breaks it
    info = result.files["test/run_suite.py"]
    result.plan.deletions[:] = [d for d in result.plan.deletions
                                if d.path != "test/run_suite.py"]
    result.plan.deletions.append(Deletion("delete_file", "test/run_suite.py", info.sha256,
                                          info.lines, "planted by the test"))
    code, output = applied_and_verified(tmp_path, tree, tampered_manifest(result))
    assert code == 8
    assert "scripts/ci/utils/diffusion/case_parser.py:4: path 'test/run_suite.py' names no " \
        "Python file of the tree" in output.splitlines()


def test_a_script_of_a_regular_package_imports_the_file_beside_it(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path)
    # check_coverage.py runs as a script (`python scripts/ci/utils/diffusion/...`): its
    # `from case_parser import suite_names` is the file beside it, which stays
    assert result.liveness.is_live("py:diffusion.case_parser:suite_names")
    info = result.files["scripts/ci/utils/diffusion/case_parser.py"]
    result.plan.deletions.append(Deletion(
        "delete_file", "scripts/ci/utils/diffusion/case_parser.py", info.sha256, info.lines,
        "planted by the test"))
    code, output = applied_and_verified(tmp_path, tree, tampered_manifest(result))
    assert code == 8
    assert "scripts/ci/utils/diffusion/check_coverage.py:3: import of diffusion.case_parser: " \
        "no such module, package or extension target in the tree" in output.splitlines()
