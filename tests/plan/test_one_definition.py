"""One definition of broken: for each class of false deletion seen on real trees, a small
sample (``sample_repos/breaks/<class>``) whose plan does not make it, and one deliberately wrong
deletion planted in that plan, which both the plan's soundness check cancels (a conflict
naming it, the node it removes or the option behind it) and ``depgraph verify --before``
reports once the wrong manifest is applied. Expectations come from reading each sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from analyzer.cli.verify import EXIT_VERIFY, verify_command
from analyzer.codemod.apply import run_apply
from analyzer.model import Deletion, Plan
from analyzer.pipeline.scan import ScanResult, run_scan
from analyzer.pipeline.verify import manifest_of
from analyzer.plan.check import Unbuilt, check_plan
from analyzer.plan.check.native_view import Build, Keep, native_plan_breaks
from tests.helpers import SAMPLES, apply_and_verify, tampered_manifest

BREAKS = SAMPLES / "breaks"


def scanned(tmp_path: Path, name: str) -> tuple[Path, ScanResult]:
    tree = tmp_path / "tree"
    shutil.copytree(BREAKS / name, tree)
    return tree, run_scan(tree, [])


def planted(result: ScanResult, **entry: Any) -> Deletion:
    info = result.files[entry["path"]]
    entry.setdefault("lines", (entry.get("end_line") or 1) - (entry.get("start_line") or 1) + 1)
    entry.setdefault("reason", "planted by the test")
    return Deletion(sha256=info.sha256, **entry)


def convicted(result: ScanResult, wrong: Deletion, node: str | None = None,
              gone: dict[str, Unbuilt] | None = None) -> list[str]:
    """What the plan's check says of the plan with ``wrong`` added: the conflicts that cancel
    it (or keep ``node``, the one it removes, or leave an option unforced)."""
    plan = Plan([*result.plan.deletions, wrong])
    conflicts = check_plan(plan, result.index, result.sources, result.breaks_before,
                           unbuilt=gone)
    return [c.what for c in conflicts
            if c.deletion == wrong or (node is not None and c.root == node) or c.option]


def verified(tmp_path: Path, tree: Path, result: ScanResult, wrong: Deletion,
             feature: str | None = None) -> list[str]:
    """Apply the plan with ``wrong`` added (or only ``feature``), then verify: its lines."""
    result.plan.deletions.append(wrong)
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(tampered_manifest(result)))
    run_apply(manifest, write=True, feature=feature, patch_out=tmp_path / "undo.patch")
    out = CliRunner().invoke(verify_command, [str(tree), "--before", str(manifest)])
    assert out.exit_code == EXIT_VERIFY, out.output
    return out.stdout.splitlines()


def deleted(result: ScanResult) -> set[tuple[str, int | None, int | None]]:
    return {(d.path, d.start_line, d.end_line) for d in result.plan.deletions}


# -- 1. an extension a forced option turns off, imported where the import must not fail --------
def test_extension_a_kept_module_needs_at_import_leaves_its_option(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "extension_import")
    # kern/flash_attn.py re-raises when flash_ops is missing and app.attention (live) imports
    # it: ENABLE_FA keeps the tree's value, so the FA block (CMakeLists.txt 6-9) stays
    assert not any(d.path == "CMakeLists.txt" for d in result.plan.deletions)
    assert {c.option for c in result.conflicts if c.option} == {"ENABLE_FA"}
    fa = next(f for f in result.features if f.name == "fa")
    assert {i.label for i in fa.blocked} >= {"flash_ops"}
    wrong = planted(result, kind="delete_range", path="CMakeLists.txt", start_line=6,
                    end_line=9, category="cmake-block", feature="fa")
    gone = {"kern.flash_ops": Unbuilt("flash_ops", ("ENABLE_FA",))}
    assert convicted(result, wrong, gone=gone) == [
        "from kern import flash_ops: the build no longer makes this extension"]
    lines = verified(tmp_path, tree, result, wrong)
    assert "kern/flash_attn.py:4: from kern import flash_ops: the build no longer makes this " \
        "extension" in lines
    # the optional import (a handler that carries on) is no break
    assert not any(line.startswith("kern/flash_attn_optional.py") for line in lines)


# -- 2. `if TYPE_CHECKING or X:` is runtime code -------------------------------------------------
def test_type_checking_or_a_runtime_test_is_runtime(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "type_checking_or")
    # layers.forward reads cuda_norm, imported under `TYPE_CHECKING or not is_rocm()`: it
    # stays; kernels.unused (5-6) goes
    assert deleted(result) == {("app/kernels.py", 5, 6)}
    wrong = planted(result, kind="delete_range", path="app/kernels.py", start_line=1,
                    end_line=2, category="python-symbol", symbol="app.kernels:cuda_norm")
    assert convicted(result, wrong, "py:app.kernels:cuda_norm")
    lines = verified(tmp_path, tree, result, wrong)
    assert "app/layers.py:6: from app.kernels import cuda_norm: app.kernels has no module, " \
        "definition or extension target named cuda_norm" in lines


# -- 3. every import of every remaining file is a read --------------------------------------------
def test_lazy_import_of_a_kept_definition_keeps_its_target(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "kept_importer")
    # rocm_attn.rocm_forward is dead but nested in an `if` (kept): its import of
    # utils.rocm_helper stays, and so does rocm_helper; utils.shared (5-6) goes
    assert deleted(result) == {("app/utils.py", 5, 6)}
    wrong = planted(result, kind="delete_range", path="app/utils.py", start_line=1, end_line=2,
                    category="python-symbol", symbol="app.utils:rocm_helper")
    assert convicted(result, wrong, "py:app.utils:rocm_helper")
    lines = verified(tmp_path, tree, result, wrong)
    assert "app/rocm_attn.py:6: from app.utils import rocm_helper: app.utils has no module, " \
        "definition or extension target named rocm_helper" in lines


# -- 4. a string annotation reads a TYPE_CHECKING import ------------------------------------------
def test_string_annotation_keeps_its_type_checking_import(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "string_annotation")
    assert not any(d.path == "app/engine.py" for d in result.plan.deletions)
    wrong = planted(result, kind="delete_range", path="app/engine.py", start_line=3,
                    end_line=4, category="python-import")
    assert convicted(result, wrong) == ["undefined name 'EngineArgs' (new after pruning)"]
    lines = verified(tmp_path, tree, result, wrong)
    # (the pruned file is two lines shorter: the def is on line 5, its annotation named)
    assert any(line.startswith("app/engine.py:") and line.endswith(
        ": undefined name 'EngineArgs' (new after pruning)") for line in lines)


# -- 5. dotted-path strings and enum members that remaining code names ----------------------------
def test_dotted_string_and_enum_member_keep_what_they_name(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "dotted_strings")
    # FooBackend is named by a string of the live registry; FOO_SPARSE (the dropped key's
    # member) is read by tests/test_kinds.py, which stays: nothing goes
    assert result.plan.deletions == []
    assert [c.what for c in result.conflicts] == [
        "Backend.FOO_SPARSE.value: Backend.FOO_SPARSE is gone"]
    wrong = planted(result, kind="delete_range", path="app/backends/mla.py", start_line=1,
                    end_line=2, category="python-symbol", symbol="app.backends.mla:FooBackend")
    assert convicted(result, wrong, "py:app.backends.mla:FooBackend")
    member = planted(result, kind="delete_range", path="app/backends/kinds.py", start_line=6,
                     end_line=6, category="registry-entry")
    assert convicted(result, member) == ["Backend.FOO_SPARSE.value: Backend.FOO_SPARSE is gone"]
    lines = verified(tmp_path, tree, result, wrong)
    assert "app/registry.py:5: dotted path 'app.backends.mla.FooBackend' names nothing in the " \
        "tree (module app.backends.mla exists)" in lines


def test_enum_member_a_kept_test_reads(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "dotted_strings")
    member = planted(result, kind="delete_range", path="app/backends/kinds.py", start_line=6,
                     end_line=6, category="registry-entry")
    lines = verified(tmp_path, tree, result, member)
    assert "tests/test_kinds.py:5: Backend.FOO_SPARSE.value: Backend.FOO_SPARSE is gone" in lines


# -- 6. typing-only imports of deleted code -------------------------------------------------------
def test_typing_only_import_keeps_its_target(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "typing_only")
    # WeightsMapper stays (quant.py names it under TYPE_CHECKING); models.utils.unused goes
    assert deleted(result) == {("app/models/utils.py", 5, 6)}
    wrong = planted(result, kind="delete_range", path="app/models/utils.py", start_line=1,
                    end_line=2, category="python-symbol", symbol="app.models.utils:WeightsMapper")
    assert convicted(result, wrong, "py:app.models.utils:WeightsMapper")
    lines = verified(tmp_path, tree, result, wrong)
    assert "app/quant.py:4: from app.models.utils import WeightsMapper: app.models.utils has " \
        "no module, definition or extension target named WeightsMapper" in lines


# -- 8. what a feature's deletions free goes with the feature -------------------------------------
def test_knock_ons_go_with_their_features(tmp_path: Path) -> None:
    _tree, result = scanned(tmp_path, "feature_knock_on")
    by_place = {(d.path, d.start_line): (d.features, d.with_features)
                for d in result.plan.deletions}
    assert by_place == {
        # the npu fold, and what only it used: npu_helpers, the backend it imports
        ("app/runner.py", 7): (("npu",), ()),
        ("app/npu_helpers.py", None): (("npu",), ()),
        ("app/npu_backend.py", None): (("npu",), ()),
        # the import of npu_init: read only by the fold, so with npu kept it stays: npu's
        # share (one definition, issue 49)
        ("app/runner.py", 2): (("npu",), ()),
        # `if is_npu() or is_rocm():` folds only with both dropped: it and what only it used
        # (accel_helpers, its import, the rocm backend) go with the last of them
        ("app/runner.py", 9): (("npu", "rocm"), ()),
        ("app/accel_helpers.py", None): (("npu", "rocm"), ()),
        ("app/runner.py", 1): (("npu", "rocm"), ()),
        ("app/rocm_backend.py", None): (("npu", "rocm"), ()),
        # the probes: read only by the folds of both
        ("app/runner.py", 3): (("npu", "rocm"), ()),
        ("app/platform.py", None): (("npu", "rocm"), ()),
        # an NPU test (the feature's by path) that also tests a model dead whatever is
        # dropped (no root uses it): it goes with npu kept too, so it is no share of npu's;
        # but it imports the NPU backend npu deletes: npu takes it along. The model no
        # deletion of a feature needs gone: the whole plan's, not npu's
        ("tests/npu/test_npu_models.py", None): ((), ("npu",)),
        ("app/legacy_model.py", None): ((), ()),
        # nothing names old_runner.py, so it is never parsed; its bytes name npu_helpers,
        # which npu deletes: it may import it, so npu takes it along
        ("app/old_runner.py", None): ((), ("npu",)),
    }
    assert result.counted == frozenset({"app/old_runner.py"})
    assert {d.path: d.feature for d in result.plan.deletions}["app/legacy_model.py"] == ""


@pytest.mark.parametrize("feature", ["npu", "rocm"])
def test_one_feature_applied_alone_verifies(tmp_path: Path, feature: str) -> None:
    tree, result = scanned(tmp_path, "feature_knock_on")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(manifest_of(result)))
    run_apply(manifest, write=True, feature=feature, patch_out=tmp_path / "undo.patch")
    out = CliRunner().invoke(verify_command, [str(tree), "--before", str(manifest)])
    assert out.exit_code == 0, out.output


def test_a_knock_on_stripped_of_its_feature_breaks_the_feature_alone(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "feature_knock_on")
    # what a planner without knock-on attribution writes: npu_helpers' deletion belongs to
    # no feature, so apply --feature npu deletes the backend it imports and leaves it behind
    result.plan.deletions[:] = [
        d if d.path != "app/npu_helpers.py"
        else Deletion(**{**d.__dict__, "feature": "", "features": (), "with_features": ()})
        for d in result.plan.deletions]
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(tampered_manifest(result)))
    run_apply(manifest, write=True, feature="npu", patch_out=tmp_path / "undo.patch")
    out = CliRunner().invoke(verify_command, [str(tree), "--before", str(manifest)])
    assert out.exit_code == EXIT_VERIFY, out.output
    assert "app/npu_helpers.py:2: import of app.npu_backend: no such module, package or " \
        "extension target in the tree" in out.stdout.splitlines()


# -- 7. a CMake variable a remaining target reads -------------------------------------------------
def test_cmake_variable_a_kept_target_reads_keeps_its_set(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "cmake_variable")
    # the ENABLE_EXTRA block does not run with the option forced off, but it sets
    # COMMON_FLAGS, which common_ops' target_compile_options (line 13) reads: the set stays,
    # extra_ops (8-9) and its source go
    assert deleted(result) == {("CMakeLists.txt", 8, 8), ("CMakeLists.txt", 9, 9),
                               ("csrc/extra.cc", None, None)}
    wrong = planted(result, kind="delete_range", path="CMakeLists.txt", start_line=7,
                    end_line=7, category="cmake-block", feature="extra")
    build = Build(result.native.cmake, result.native.facts, frozenset(result.files),
                  {p: f.lines for p, f in result.files.items()}, result.sources,
                  dict(result.native.project.forced))
    found = native_plan_breaks(Plan([*result.plan.deletions, wrong]), build, result.index,
                               result.native_before, result.breaks_before)
    assert [(b.what, keeps) for b, keeps in found] == [
        ("target common_ops uses ${COMMON_FLAGS}, which nothing in the tree sets any more",
         [Keep(line=("CMakeLists.txt", 7))])]
    lines = verified(tmp_path, tree, result, wrong)
    # three lines gone above it: common_ops is created on line 9
    assert "CMakeLists.txt:9: target common_ops uses ${COMMON_FLAGS}, which nothing in the " \
        "tree sets any more" in lines


def test_a_cmake_variable_of_cmake_itself_needs_no_set_of_the_tree(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(BREAKS / "cmake_variable", tree)
    with (tree / "CMakeLists.txt").open("a") as f:  # lines 15-18
        f.write('if(ENABLE_EXTRA)\n    set(CMAKE_BUILD_TYPE Release)\nendif()\n'
                'message(STATUS "Build type: ${CMAKE_BUILD_TYPE}")\n')
    result = run_scan(tree, [])
    # CMAKE_BUILD_TYPE, which line 18 reads, is CMake's (-D, the cache): a plan deleting the
    # only set() of it in the tree (lines 15-17) breaks nothing, for the check and for verify
    wrong = planted(result, kind="delete_range", path="CMakeLists.txt", start_line=15,
                    end_line=17, category="cmake-block", feature="extra")
    build = Build(result.native.cmake, result.native.facts, frozenset(result.files),
                  {p: f.lines for p, f in result.files.items()}, result.sources,
                  dict(result.native.project.forced))
    assert native_plan_breaks(Plan([*result.plan.deletions, wrong]), build, result.index,
                              result.native_before, result.breaks_before) == []
    result.plan.deletions.append(wrong)
    out = apply_and_verify(tmp_path, tree, result, tampered=True)
    assert out.exit_code == 0, out.output


# -- 9. a name bound in every arm of a folded platform test keeps the arm that runs -----------
def test_folding_the_arms_that_never_run_loses_no_name(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "folded_binding")
    # quant.py's `if _is_hip:` (5-11) and topk.py's elif/else (8-11) fold; hip_topk (kernels
    # 5-6) and common.py are then dead
    assert deleted(result) == {("app/quant.py", 5, 11), ("app/topk.py", 8, 11),
                               ("app/kernels.py", 5, 6), ("app/common.py", None, None)}
    assert result.conflicts == []
    out = apply_and_verify(tmp_path, tree, result)
    assert out.exit_code == 0, out.output


def test_removing_the_binding_that_runs_is_a_lost_name(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "folded_binding")
    # topk.py line 7 is the import that runs on CUDA: with the other arms folded away, nothing
    # binds fast_topk, which main.py imports
    wrong = planted(result, kind="delete_range", path="app/topk.py", start_line=7, end_line=7,
                    category="python-import")
    assert convicted(result, wrong, "py:app.topk")
    lines = verified(tmp_path, tree, result, wrong)
    assert "app/main.py:2: from app.topk import fast_topk: app.topk has no module, " \
        "definition or extension target named fast_topk" in lines


# -- 10. the last module of a namespace package ---------------------------------------------------
def test_a_string_naming_a_namespace_package_goes_with_its_modules(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "namespace_package")
    # app/test/external_models has no __init__.py; its one module subclasses the dead
    # QwenModel. The test naming "app.test.external_models" reaches it, so it goes with it;
    # test_llama stays
    # test_stubs names "app.srt", a folder of folders: no plugin folder, so the dead
    # app/srt/layers/attention.py goes alone and the test stays
    assert deleted(result) == {("app/qwen.py", None, None),
                               ("app/test/external_models/custom_qwen.py", None, None),
                               ("tests/test_plugins.py", None, None),
                               ("app/srt/layers/attention.py", None, None)}
    assert result.conflicts == []
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(manifest_of(result)))
    run_apply(manifest, write=True, patch_out=tmp_path / "undo.patch")
    assert not (tree / "app" / "test" / "external_models").exists()
    out = CliRunner().invoke(verify_command, [str(tree), "--before", str(manifest)])
    assert out.exit_code == 0, out.output


def test_emptying_a_namespace_package_a_kept_string_names_breaks_it(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "namespace_package")
    # a plan that keeps the test but deletes the plugin: the string then names nothing
    result.plan.deletions[:] = [d for d in result.plan.deletions
                                if d.path != "tests/test_plugins.py"]
    wrong = next(d for d in result.plan.deletions
                 if d.path == "app/test/external_models/custom_qwen.py")
    result.plan.deletions.remove(wrong)
    assert convicted(result, wrong, "py:app.test.external_models.custom_qwen")
    lines = verified(tmp_path, tree, result, wrong)
    assert "tests/test_plugins.py:7: dotted path 'app.test.external_models' names nothing in " \
        "the tree (package app.test exists)" in lines


# -- 11. a computed import of the module's own listed submodules --------------------------------
def test_a_package_importing_its_listed_groups_keeps_them(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "own_name_imports")
    # app/ops/__init__.py imports app.ops.alpha and app.ops.beta (f"{__name__}.{_group}" over
    # the tuple _GROUPS); nothing imports app.ops.gamma
    assert deleted(result) == {("app/ops/gamma.py", None, None)}
    wrong = planted(result, kind="delete_file", path="app/ops/alpha.py", category="python-file")
    assert convicted(result, wrong, "py:app.ops.alpha") == [
        "importlib.import_module('app.ops.alpha') names nothing in the tree"]
    lines = verified(tmp_path, tree, result, wrong)
    assert "app/ops/__init__.py:11: importlib.import_module('app.ops.alpha') names nothing in " \
        "the tree" in lines


# -- 8b. a native knock-on: a file whose only include another feature's fold removes ---------
def test_a_cmake_file_two_features_fold_goes_with_either(tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "native_knock_on")
    # cpu owns cmake/cpu_extension.cmake and csrc/cpu.cc; the include (line 7) lies in the
    # block 6-9 that TARGET_DEVICE=cuda folds, which both cpu and tpu force: keeping either
    # alone, the other still folds it, so it is in neither share (one definition, issue 49);
    # it goes with any of them, and so does what only the block included
    by_path = {(d.path, d.start_line): (d.features, set(d.with_features))
               for d in result.plan.deletions}
    assert by_path[("CMakeLists.txt", 6)] == ((), {"tpu", "cpu"})
    assert by_path[("cmake/cpu_extension.cmake", None)] == ((), {"cpu"})
    out = apply_and_verify(tmp_path, tree, result, feature="cpu")
    assert not (tree / "cmake" / "cpu_extension.cmake").exists()
    assert out.exit_code == 0, out.output


# -- 12. an extension one feature's CMake edits remove, imported by code two features take ---
def test_an_extension_a_feature_s_build_edits_remove_waits_for_its_importer(
        tmp_path: Path) -> None:
    tree, result = scanned(tmp_path, "share_extension")
    # the ROCm block (CMakeLists.txt 9-12) is rocm's, but kern/platforms/rocm.py, which
    # imports the extension it builds, goes only with rocm and cpu: so does the block
    features = {(d.path, d.start_line): d.features for d in result.plan.deletions}
    assert features[("CMakeLists.txt", 9)] == ("rocm", "cpu")
    assert features[("kern/platforms/rocm.py", None)] == ("rocm", "cpu")
    out = apply_and_verify(tmp_path, tree, result, feature="rocm")
    assert out.exit_code == 0, out.output
