"""Verify stage, native half: ``native_baseline`` of sample_repos/native_macro_ops, and
``check_native`` naming each way a pruning can break its build (a deliberately wrong pruned
copy per class). Expected problems are written by hand from reading the sample (line numbers
as listed in tests/plan/test_native_macro_ops.py's docstring; ``cmake/utils.cmake``:
``define_ext_target`` opens on line 11, ``target_include_directories`` is line 20).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from analyzer.codemod.apply import run_apply
from analyzer.outputs.manifest import write_manifest
from analyzer.pipeline.scan import run_scan
from analyzer.verify.checks import check
from analyzer.verify.native import baseline_of
from analyzer.verify.native import check_native as check_against
from tests.helpers import SAMPLES

MACRO = SAMPLES / "native_macro_ops"
CACHE_NS = "CONCAT(TORCH_EXTENSION_NAME,_cache_ops)"


def scan(tree: Path):
    return run_scan(tree, ["deepseek_v2"], use_profile=False)


def native_baseline(result) -> dict:
    """What the manifest records of a scanned build."""
    return baseline_of(result)


def check_native(result, baseline: dict | None) -> list:
    """The native problems of ``result`` against a recorded ``baseline``."""
    return check_against(result, {"verify_baseline_native": baseline})


@pytest.fixture(scope="module")
def baseline() -> dict:
    return native_baseline(scan(MACRO))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    dest = tmp_path / "native_macro_ops"
    shutil.copytree(MACRO, dest)
    return dest


def edit(path: Path, old: str, new: str = "") -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def problems(tree: Path, baseline: dict) -> list[str]:
    return [str(p) for p in check_native(scan(tree), baseline)]


def test_baseline_records_ops_fetches_targets_and_functions(baseline: dict) -> None:
    assert json.loads(json.dumps(baseline)) == baseline
    ops = baseline["ops"]
    # 4 + 6 in csrc/torch_bindings.cpp, 2 in csrc/moe/, 4 each in extra/ and quant/; the
    # macro namespaces read from the targets' -DTORCH_EXTENSION_NAME=<target>
    assert len(ops) == 20
    assert {(o["namespace"], o["resolved"]) for o in ops} == {
        ("_C", True), ("_C_cache_ops", True), ("_moe_C", True), ("macro_extra", True),
        ("macro_quant", True)}
    assert {"namespace": "_C_cache_ops", "resolved": True, "reason": None,
            "op": "concat_and_cache_mla", "kind": "def", "file": "csrc/torch_bindings.cpp",
            "line": 23} in ops
    assert [(f["name"], f["make_available"]) for f in baseline["fetches"]] == [
        ("cutlass", True), ("oldlib", False)]
    assert "CUTLASS_INCLUDE_DIR" in baseline["fetches"][0]["derived"]
    targets = {t["name"]: t for t in baseline["targets"]}
    assert sorted(targets) == ["_C", "_extra_C", "_legacy_C", "_moe_C", "cumem_allocator",
                               "macro_utils"]
    assert targets["_C"] == {
        "name": "_C", "file": "CMakeLists.txt", "line": 37,
        "variables": ["CUTLASS_INCLUDE_DIR", "MACRO_EXT_SRC"], "fetches": ["cutlass"],
        "links": ["macro_utils", "torch"], "depends": [], "kept": None}
    assert targets["cumem_allocator"]["kept"].startswith("nothing is shown to load it")
    assert [(f["name"], f["kind"], f["file"], f["line"], len(f["body"]))
            for f in baseline["functions"]] == [
        ("run_python", "function", "cmake/utils.cmake", 3, 2),
        ("define_ext_target", "function", "cmake/utils.cmake", 11, 7)]


def test_untouched_tree_has_no_problem(baseline: dict) -> None:
    result = scan(MACRO)
    assert check_native(result, baseline) == []
    assert check_native(result, None) == []


MACRO_WHY = (f"the namespace is not a literal (namespace {CACHE_NS} is a macro expression): "
             "Python may call it, so its registrations are never deleted")

# One removal from a copy of the sample: (file, the text removed, the problems verify names).
REMOVALS = [
    pytest.param("csrc/torch_bindings.cpp", """\
  cache_ops.def(
      "concat_and_cache_mla(Tensor kv_c, Tensor k_pe, Tensor! kv_cache, "
      "Tensor slot_mapping) -> ()");
  cache_ops.impl("concat_and_cache_mla", torch::kCUDA, &concat_and_cache_mla);
""", [
        # the op now exists nowhere: the call site is named (not the registrations)
        "macrollm/_custom_ops.py:14: torch.ops._C_cache_ops.concat_and_cache_mla: op "
        "concat_and_cache_mla is registered nowhere in namespace _C_cache_ops",
    ], id="registration-in-a-build-defined-namespace"),
    # the m.impl stays, so the op still exists for analyzer.verify.checks; the schema is gone
    pytest.param("csrc/extra/extra_bindings.cpp",
                 '  m.def("gelu_fast(Tensor! out, Tensor input) -> ()");\n', [
        'csrc/extra/extra_bindings.cpp:10: m.def("gelu_fast") in namespace macro_extra was '
        "removed, but Python that remains still calls torch.ops.macro_extra.gelu_fast "
        "(macrollm/_custom_ops.py:18)"], id="definition-of-a-called-op"),
    pytest.param("csrc/quant/quant_bindings.cpp", """\
  m.def("unused_quant(Tensor! out) -> ()");
  m.impl("unused_quant", torch::kCUDA, &unused_quant);
""", [
        'csrc/quant/quant_bindings.cpp:10: m.def("unused_quant") in namespace macro_quant was '
        "removed, but Python that remains still reads torch.ops.macro_quant whole "
        "(macrollm/quant.py:9)",
        'csrc/quant/quant_bindings.cpp:11: m.impl("unused_quant") in namespace macro_quant was '
        "removed, but Python that remains still reads torch.ops.macro_quant whole "
        "(macrollm/quant.py:9)",
    ], id="op-of-a-namespace-read-whole"),
    # six lines gone: set(CUTLASS_INCLUDE_DIR ...) is now line 8, the _C call opens on 31
    pytest.param("CMakeLists.txt", """\
FetchContent_Declare(
  cutlass
  GIT_REPOSITORY https://example.com/cutlass-lite.git
  GIT_TAG v1.0.0
)
FetchContent_MakeAvailable(cutlass)
""", [
        "CMakeLists.txt:8: set() uses ${cutlass_SOURCE_DIR} of fetched repository cutlass, "
        "whose declaration is gone",
        "CMakeLists.txt:31: fetched repository cutlass (FetchContent_MakeAvailable, whose "
        "CMake may define targets) is gone, but _C, _extra_C, _legacy_C, _moe_C link "
        "libraries no in-tree target defines (torch)",
        "CMakeLists.txt:31: target _C uses fetched repository cutlass, whose declaration is "
        "gone"], id="fetch-used-through-a-variable"),
    pytest.param("cmake/utils.cmake",
                 "  target_include_directories(${MOD_NAME} PRIVATE csrc "
                 "${ARG_INCLUDE_DIRECTORIES})\n", [
        "cmake/utils.cmake:11: function define_ext_target(): body command "
        "target_include_directories(${MOD_NAME} PRIVATE csrc ${ARG_INCLUDE_DIRECTORIES}) "
        "(was cmake/utils.cmake:20) is gone; a body serves every call"],
        id="line-of-a-shared-function-body"),
    # one line gone: set(CUTLASS_INCLUDE_DIR ...) is line 13, the _C call opens on 36
    pytest.param("CMakeLists.txt", "FetchContent_MakeAvailable(cutlass)\n", [
        "CMakeLists.txt:13: set() uses ${cutlass_SOURCE_DIR} of fetched repository cutlass, "
        "whose populate call is gone",
        "CMakeLists.txt:36: fetched repository cutlass (FetchContent_MakeAvailable, whose "
        "CMake may define targets) is gone, but _C, _extra_C, _legacy_C, _moe_C link "
        "libraries no in-tree target defines (torch)",
        "CMakeLists.txt:36: target _C uses fetched repository cutlass, whose populate call is "
        "gone"], id="fetch-declared-but-no-longer-made-available"),
    pytest.param("CMakeLists.txt",
                 "add_library(cumem_allocator SHARED csrc/cumem_allocator.cpp)\n", [
        "CMakeLists.txt:28: target cumem_allocator was removed, but the scan kept it as "
        "unresolved (nothing is shown to load it: not installed into a package Python "
        "imports, not linked by another target)"], id="unresolved-target"),
    # one line gone: the _C call now opens on line 36
    pytest.param("CMakeLists.txt",
                 "add_library(macro_utils STATIC csrc/utils/dispatch_utils.cpp)\n", [
        "CMakeLists.txt:36: target _C links macro_utils, which no longer exists"],
        id="linked-target"),
    pytest.param("CMakeLists.txt", "set(CUTLASS_INCLUDE_DIR ${cutlass_SOURCE_DIR}/include)\n", [
        "CMakeLists.txt:36: target _C uses ${CUTLASS_INCLUDE_DIR}, which nothing in the tree "
        "sets any more"], id="variable-a-target-uses-no-longer-set"),
]


@pytest.mark.parametrize(("path", "removed", "expected"), REMOVALS)
def test_removal_is_named(tree: Path, baseline: dict, path: str, removed: str,
                          expected: list[str]) -> None:
    edit(tree / path, removed)
    assert problems(tree, baseline) == expected


def test_fetch_used_by_an_install_command_removed(tree: Path, baseline: dict) -> None:
    # a remaining non-target command using a variable of the removed repository
    edit(tree / "CMakeLists.txt", "FetchContent_Populate(oldlib)\n",
         "FetchContent_Populate(oldlib)\n"
         "install(DIRECTORY ${oldlib_SOURCE_DIR}/py/ DESTINATION macrollm/third_party)\n")
    base = native_baseline(scan(tree))
    edit(tree / "CMakeLists.txt", """\
FetchContent_Declare(
  oldlib
  GIT_REPOSITORY https://example.com/oldlib.git
  GIT_TAG v0.1.0
)
FetchContent_Populate(oldlib)
""")
    assert problems(tree, base) == [
        "CMakeLists.txt:17: install() uses ${oldlib_SOURCE_DIR} of fetched repository oldlib, "
        "whose declaration is gone",
        "CMakeLists.txt:51: target _legacy_C uses fetched repository oldlib, whose "
        "declaration is gone"]


def test_function_definition_removed_while_called(tree: Path, baseline: dict) -> None:
    text = (tree / "cmake/utils.cmake").read_text()
    start = text.index("function(define_ext_target")
    end = text.index("endfunction()", start) + len("endfunction()\n")
    (tree / "cmake/utils.cmake").write_text(text[:start] + text[end:])
    # and no target compiles csrc/torch_bindings.cpp with -DTORCH_EXTENSION_NAME=_C any more:
    # the ops live Python calls are registered nowhere
    calls = {"rms_norm": ("_C", 10), "concat_and_cache_mla": ("_C_cache_ops", 14)}
    assert problems(tree, baseline) == [
        "CMakeLists.txt:37: define_ext_target() is called, but its function() definition "
        "(cmake/utils.cmake) is gone",
        *(f'csrc/torch_bindings.cpp:{line}: m.{kind}("{op}") in namespace {calls[op][0]} was '
          f"removed, but Python that remains still calls torch.ops.{calls[op][0]}.{op} "
          f"(macrollm/_custom_ops.py:{calls[op][1]})"
          for op, kind, line in (("rms_norm", "def", 8), ("rms_norm", "impl", 9),
                                 ("concat_and_cache_mla", "def", 23),
                                 ("concat_and_cache_mla", "impl", 26)))]


def test_call_of_an_op_registered_nowhere(tree: Path) -> None:
    edit(tree / "csrc/torch_bindings.cpp", """\
  cache_ops.def(
      "concat_and_cache_mla(Tensor kv_c, Tensor k_pe, Tensor! kv_cache, "
      "Tensor slot_mapping) -> ()");
  cache_ops.impl("concat_and_cache_mla", torch::kCUDA, &concat_and_cache_mla);
""")
    assert [str(p) for p in check(scan(tree))] == [
        "macrollm/_custom_ops.py:14: torch.ops._C_cache_ops.concat_and_cache_mla: op "
        "concat_and_cache_mla is registered nowhere in namespace _C_cache_ops"]


def test_applied_plan_passes(tree: Path, tmp_path: Path, baseline: dict) -> None:
    result = scan(tree)
    manifest = tmp_path / "manifest.json"
    write_manifest(result, manifest)
    applied = run_apply(manifest, write=True, patch_out=tmp_path / "undo.patch")
    assert applied.changes and not applied.skipped
    after = scan(tree)
    assert check_native(after, native_baseline(result)) == []
    assert check(after) == []
    assert not (tree / "csrc/legacy/legacy_kernels.cpp").exists()
    assert "oldlib" not in (tree / "CMakeLists.txt").read_text()


def test_repository_populated_with_arguments_has_no_declaration_to_lose(tmp_path: Path):
    # vLLM's cpu_extension.cmake fetches Arm Compute with FetchContent_Populate(name
    # GIT_REPOSITORY ...) and no FetchContent_Declare: an untouched tree is no problem
    from tests.helpers import write_tree

    tree = write_tree(tmp_path / "t", {
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX)\n"
                          "include(FetchContent)\n"
                          "FetchContent_Populate(acl\n  GIT_REPOSITORY https://x/acl.git\n"
                          "  GIT_TAG v1\n)\n"
                          'set(ENV{ACL_ROOT_DIR} "${acl_SOURCE_DIR}")\n',
        "app/__init__.py": "",
    })
    result = run_scan(tree, [], use_profile=False)
    assert check_native(result, native_baseline(result)) == []
