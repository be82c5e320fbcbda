"""depgraph verify: the untouched sample holds together; each way of breaking it is reported
with the exact ``path:line: what`` line (expectations written from reading the sample)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyzer.cli.verify import EXIT_VERIFY, verify_command
from analyzer.config.options import ScanOptions
from analyzer.pipeline.scan import run_scan
from analyzer.pipeline.verify import manifest_of, verify_scan
from tests.helpers import MINI_SGLANG

PY = "python/minisgl/srt"
CMAKE = "sgl-kernel/CMakeLists.txt"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    dest = tmp_path / "mini_sglang"
    shutil.copytree(MINI_SGLANG, dest)
    return dest


def problems(tree: Path, **kw) -> list[str]:
    before = kw.pop("before", None)
    options = ScanOptions(roots=("deepseek_v2",), **kw)
    return [str(p) for p in verify_scan(tree, options, before=before).problems]


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_untouched_sample_verifies(tree: Path) -> None:
    assert problems(tree) == []


def test_deleted_module_a_live_file_imports(tree: Path) -> None:
    (tree / PY / "layers/attention/mla.py").unlink()
    assert problems(tree) == [
        f"{PY}/models/deepseek_v2.py:4: import of minisgl.srt.layers.attention.mla: no such "
        "module, package or extension target in the tree"]


def test_deleted_module_only_dead_code_imports_is_fine(tree: Path) -> None:
    # llama.py is dead (no root, plugin family restricted to the roots); only a test uses it
    (tree / PY / "models/llama.py").unlink()
    (tree / "test/test_llama.py").unlink()
    assert problems(tree) == []


def test_deleted_cmake_source(tree: Path) -> None:
    (tree / "sgl-kernel/csrc/elementwise/norm.cu").unlink()
    assert problems(tree) == [
        f"{CMAKE}:21: target common_ops lists csrc/elementwise/norm.cu: no such file "
        "(sgl-kernel/csrc/elementwise/norm.cu)"]


def test_removed_op_registration_still_called(tree: Path) -> None:
    replace(tree / "sgl-kernel/csrc/common_extension.cc",
            '  m.def(\n      "rmsnorm(Tensor! output, Tensor input, "\n'
            '      "Tensor weight, float eps) -> ()");\n'
            '  m.impl("rmsnorm", torch::kCUDA, &rmsnorm);\n', "")
    assert problems(tree) == [
        "sgl-kernel/python/mini_kernel/elementwise.py:15: torch.ops.mini_kernel.rmsnorm: op "
        "rmsnorm is registered nowhere in namespace mini_kernel"]


def test_dead_caller_of_missing_op_is_fine(tree: Path) -> None:
    # fwd is called only by flash_attn_fwd, which nothing live references
    replace(tree / "sgl-kernel/csrc/flash_extension.cc",
            '  m.def("fwd(Tensor q, Tensor k, Tensor v, float softmax_scale, bool is_causal) '
            '-> Tensor[]");\n  m.impl("fwd", torch::kCUDA, &mha_fwd);\n', "")
    assert problems(tree) == []


def test_syntax_error_in_live_file(tree: Path) -> None:
    replace(tree / PY / "utils/common.py", "def unused_helper", "def unused_helper(:\ndef x")
    assert problems(tree) == [f"{PY}/utils/common.py:17: does not compile: invalid syntax"]


def test_deleted_included_cmake_file(tree: Path) -> None:
    (tree / "sgl-kernel/cmake/flashmla.cmake").unlink()
    assert problems(tree) == [
        f"{CMAKE}:49: include(${{CMAKE_CURRENT_LIST_DIR}}/cmake/flashmla.cmake): no such file"]


def test_kept_target_and_imported_extension_without_target(tree: Path) -> None:
    replace(tree / CMAKE, "Python_add_library(common_ops", "message(common_ops")
    assert problems(tree) == [
        "depgraph.toml:14: kept target 'common_ops' (profile keep_targets) is defined by no "
        "CMake file",
        "sgl-kernel/python/mini_kernel/__init__.py:9: from mini_kernel import common_ops: "
        "mini_kernel has no module, definition or extension target named common_ops"]


def test_unknown_keep_target_option(tree: Path) -> None:
    assert problems(tree, keep_targets=("nosuch_ops",)) == [
        "<command line>:0: kept target 'nosuch_ops' (--keep-target) is defined by no CMake "
        "file"]


def test_dotted_path_string_naming_nothing(tree: Path) -> None:
    replace(tree / PY / "model_executor/model_runner.py", "model_loader.loader.Default",
            "model_loader.gone.Default")
    assert problems(tree) == [
        f"{PY}/model_executor/model_runner.py:17: dotted path "
        "'minisgl.srt.model_loader.gone.DefaultModelLoader' names nothing in the tree "
        "(package minisgl.srt.model_loader exists)"]


def test_command_fails_with_exit_8(tree: Path) -> None:
    (tree / PY / "layers/attention/mla.py").unlink()
    out = CliRunner().invoke(verify_command, [str(tree), "--roots", "deepseek_v2"])
    assert out.exit_code == EXIT_VERIFY
    assert out.stdout.splitlines() == [
        f"{PY}/models/deepseek_v2.py:4: import of minisgl.srt.layers.attention.mla: no such "
        "module, package or extension target in the tree"]


def test_command_ok_with_before_totals(tree: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(manifest_of(run_scan(tree, ["deepseek_v2"]))))
    # prune by hand what the plan calls dead: a whole Python file (and the dead function
    # that imports it), and the FA3 block
    (tree / PY / "utils/legacy_only.py").unlink()
    replace(tree / PY / "utils/common.py", "def unused_helper(x):\n"
            "    from minisgl.srt.utils.legacy_only import legacy_transform\n\n"
            "    return legacy_transform(x)\n", "")
    (tree / "sgl-kernel/csrc/flash_extension.cc").unlink()
    (tree / "sgl-kernel/csrc/flash/flash_fwd.cu").unlink()
    text = (tree / CMAKE).read_text()
    start, end = text.index("if(ENABLE_FA3)"), text.index("endif()") + len("endif()")
    (tree / CMAKE).write_text(text[:start] + text[end:])
    out = CliRunner().invoke(verify_command, [str(tree), "--roots", "deepseek_v2",
                                              "--before", str(manifest)])
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert lines[0] == "verify: OK"
    # 39 Python files before; legacy_only.py (2 lines) gone. Native: 14 C/C++/CUDA files
    # before, 2 gone. Targets: common_ops, flash_ops, flashmla_ops -> flash_ops gone.
    assert "  Python files: 39 -> 38" in lines
    assert "  native files: 14 -> 12" in lines
    assert "  targets: 3 -> 2" in lines
    # TUs left: common_ops compiles common_extension.cc, activation.cu, norm.cu, fp8_gemm.cu
    # and the csrc/moe/*.cu glob (align.cu, topk.cu); flashmla_ops flashmla_extension.cc and
    # mla_metadata.cu. The manifest has no TU total, so "before" is unknown.
    assert "  translation units: 10 -> 8" in lines  # common_ops 6 + flash_ops 2 + flashmla 2


def test_command_bad_path(tmp_path: Path) -> None:
    out = CliRunner().invoke(verify_command, [str(tmp_path / "missing")])
    assert out.exit_code == 3


def test_import_in_folded_branch_is_not_checked(tree: Path) -> None:
    # layernorm.py:4 imports npu_ops under `if _is_npu:`, which the profile folds to False;
    # model_runner.py:23 import_module()s it in load_platform_ops, which nothing live calls
    shutil.rmtree(tree / PY / "hardware_backend")
    assert problems(tree) == []


def test_import_in_folded_branch_is_checked_without_profile(tree: Path) -> None:
    shutil.rmtree(tree / PY / "hardware_backend")
    # without the profile, is_npu() is not folded: both loads of npu_ops run
    assert problems(tree, use_profile=False) == [
        f"{PY}/layers/layernorm.py:4: import of minisgl.srt.hardware_backend.npu.npu_ops: no "
        "such module, package or extension target in the tree",
        f"{PY}/model_executor/model_runner.py:23: importlib.import_module("
        "'minisgl.srt.hardware_backend.npu.npu_ops') names nothing in the tree"]


def test_verify_replays_the_options_the_manifest_recorded(tree: Path, tmp_path: Path) -> None:
    # the manifest says the scan used --roots deepseek_v2 --drop fa3; verify --before with no
    # option replays them, an option typed on the command line overrides its field
    manifest = tmp_path / "manifest.json"
    data = manifest_of(run_scan(tree, ["deepseek_v2"], drop=("fa3",)))
    assert data["options"]["roots"] == ["deepseek_v2"] and data["options"]["drop"] == ["fa3"]
    data["options"]["drop"] = ["no_such_feature"]  # a replay would now fail on it
    manifest.write_text(json.dumps(data))
    out = CliRunner().invoke(verify_command, [str(tree), "--before", str(manifest)])
    assert out.exit_code == 6 and "unknown feature 'no_such_feature'" in out.output
    out = CliRunner().invoke(verify_command, [str(tree), "--before", str(manifest),
                                              "--drop", "fa3"])
    assert out.exit_code == 0, out.output
