"""What a bare import or a path string names depends on how the file is loaded: the sample
``sample_repos/script_imports`` (expectations from reading it)."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from analyzer.cli.verify import verify_command
from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES, apply_and_verify


def test_bare_imports_and_path_strings(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "script_imports", tree)
    result = run_scan(tree, [])
    assert {(d.path, d.start_line, d.end_line) for d in result.plan.deletions} == {
        # llama.py's `from transformers import LlamaConfig` is the third-party package
        # (pkg/models is a namespace folder of the regular package pkg): the in-tree
        # pkg/models/transformers.py is read by nothing
        ("pkg/models/transformers.py", None, None),
        # dequant.py is loaded by its path: its public dequant_k_cache stays, _helper goes
        ("pkg/kernels/dequant.py", 5, 6),
        # pkg.ocr is dead; tests/xpu/ocr_case.py tests it, and test_ocr.py imports
        # ocr_case as the file beside it: both go with it
        ("pkg/ocr.py", None, None),
        ("tests/xpu/ocr_case.py", None, None),
        ("tests/xpu/test_ocr.py", None, None),
    }
    out = apply_and_verify(tmp_path, tree, result)
    assert out.exit_code == 0, out.output


def test_a_file_loaded_by_path_that_is_gone_is_a_break(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "script_imports", tree)
    (tree / "pkg" / "kernels" / "dequant.py").unlink()
    out = CliRunner().invoke(verify_command, [str(tree)])
    assert "pkg/loader.py:8: path 'pkg/kernels/dequant.py' names no Python file of the " \
        "tree" in out.stdout.splitlines(), out.output
