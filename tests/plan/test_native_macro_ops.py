"""Graph and plan stages, native half, on sample_repos/native_macro_ops (a vLLM-shaped build):
what cannot be resolved is kept.

Expectations are written by hand from reading the sample:
- CMakeLists.txt: cutlass declared at 8-12, made available at 13 and used only through
  ``set(CUTLASS_INCLUDE_DIR ...)`` (14) passed to the ``_C`` call (37-42); oldlib declared at
  17-21, populated at 22, used only by the ``_legacy_C`` call (56-60); macro_utils (25) linked
  by ``_C``; cumem_allocator (28) installed nowhere; the EXTRA_SRC entry of old_gelu.cu alone
  on line 47;
- cmake/utils.cmake: ``define_ext_target`` (lines 11-25) creates every extension target;
- csrc/torch_bindings.cpp and csrc/moe/torch_bindings.cpp register under
  ``TORCH_EXTENSION_NAME`` / ``CONCAT(TORCH_EXTENSION_NAME, _cache_ops)`` (macros), which
  ``define_ext_target`` sets per target (``-DTORCH_EXTENSION_NAME=${MOD_NAME}``): ``_C`` and
  ``_C_cache_ops`` for the first file (only ``_C`` compiles it), ``_moe_C`` for the second.
  ``unresolved`` is the sample with csrc/ops.h defining the macro too (a header could
  redefine it): then nothing in those namespaces can be read;
  csrc/extra/extra_bindings.cpp under ``macro_extra`` through ``TORCH_LIBRARY_EXPAND``
  (defined in csrc/core/registration.h as ``TORCH_LIBRARY(NAME, MODULE)``), with old_gelu at
  lines 14-15; csrc/quant/quant_bindings.cpp under ``macro_quant``;
- Python: models/deepseek_v2.py (the root) reaches _custom_ops.py (imports ``_C`` and
  ``_extra_C``, calls rms_norm, concat_and_cache_mla and gelu_fast) and quant.py (reads
  ``torch.ops.macro_quant`` whole); moe.py (imports ``_moe_C``) and legacy.py (imports
  ``_legacy_C``) are imported by nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES, write_tree

MACRO = SAMPLES / "native_macro_ops"
EXT = "TORCH_EXTENSION_NAME"
CACHE_NS = "CONCAT(TORCH_EXTENSION_NAME,_cache_ops)"


@pytest.fixture(scope="module")
def scan():
    return run_scan(MACRO, ["deepseek_v2"], use_profile=False)


def unresolved_copy(base: Path) -> Path:
    tree = base / "unresolved"
    shutil.copytree(MACRO, tree)
    with (tree / "csrc/ops.h").open("a") as fh:
        fh.write("\n#ifndef TORCH_EXTENSION_NAME\n#define TORCH_EXTENSION_NAME _C\n#endif\n")
    return tree


@pytest.fixture(scope="module")
def unresolved(tmp_path_factory):
    return run_scan(unresolved_copy(tmp_path_factory.mktemp("macro")), ["deepseek_v2"],
                    use_profile=False)


def native_deletions(result) -> set[tuple]:
    return {(d.kind, d.path, d.start_line, d.end_line) for d in result.plan.deletions
            if d.category not in ("python-file", "python-symbol", "python-import")}


def test_plan_removes_only_what_is_shown_dead(scan) -> None:
    assert native_deletions(scan) == {
        # the _legacy_C call (its module is imported only by dead legacy.py) and the
        # repository only that call used: declaration and populate call
        ("delete_range", "CMakeLists.txt", 56, 60),
        ("delete_range", "CMakeLists.txt", 17, 21),
        ("delete_range", "CMakeLists.txt", 22, 22),
        ("delete_file", "csrc/legacy/legacy_kernels.cpp", None, None),
        # macro_extra is a literal namespace (the wrapper passes it through): its dead op goes
        ("delete_range", "csrc/extra/extra_bindings.cpp", 14, 14),
        ("delete_range", "csrc/extra/extra_bindings.cpp", 15, 15),
        ("delete_file", "csrc/extra/old_gelu.cu", None, None),
        ("delete_range", "CMakeLists.txt", 47, 47),
        # _C and _C_cache_ops (read from the targets' -D): the ops no live Python calls lose
        # their registrations; their kernels share files with live ops and stay
        ("delete_range", "csrc/torch_bindings.cpp", 12, 14),
        ("delete_range", "csrc/torch_bindings.cpp", 15, 15),
        ("delete_range", "csrc/torch_bindings.cpp", 19, 19),
        ("delete_range", "csrc/torch_bindings.cpp", 20, 20),
        ("delete_range", "csrc/torch_bindings.cpp", 28, 28),
        ("delete_range", "csrc/torch_bindings.cpp", 29, 29),
        # _moe_C: only dead moe.py imports it and nothing calls its op: the call creating it
        # and its two sources go
        ("delete_range", "CMakeLists.txt", 51, 54),
        ("delete_file", "csrc/moe/torch_bindings.cpp", None, None),
        ("delete_file", "csrc/moe/topk_softmax.cu", None, None),
    }


def test_namespaces_the_build_defines_per_target_are_read(scan) -> None:
    assert scan.native.unresolved_namespaces == {}
    assert scan.native.namespaces == {"_C", "_C_cache_ops", "_moe_C", "macro_extra",
                                      "macro_quant"}
    live = scan.liveness.is_live
    assert live("op:_C_cache_ops::concat_and_cache_mla") and live("op:_C::rms_norm")
    assert not live("op:_C::fused_add_rms_norm")


def test_nothing_in_a_function_body_or_a_macro_namespace_is_deleted(unresolved) -> None:
    scan = unresolved
    paths = {d.path for d in scan.plan.deletions}
    assert "cmake/utils.cmake" not in paths
    assert "csrc/torch_bindings.cpp" not in paths
    assert "csrc/moe/torch_bindings.cpp" not in paths
    assert scan.native.unresolved_namespaces.keys() == {EXT, CACHE_NS}
    assert scan.native.namespaces == {"macro_extra", "macro_quant"}
    # 4 + 6 registrations in csrc/torch_bindings.cpp, 2 in csrc/moe/torch_bindings.cpp
    assert scan.native_summary.unresolved_ops == 12
    live = scan.liveness.is_live
    assert live(f"op:{CACHE_NS}::concat_and_cache_mla")
    assert live(f"op:{EXT}::fused_add_rms_norm")  # no caller, kept all the same
    # _moe_C: only dead moe.py imports it, but its ops may be called: it stays
    assert live("target:_moe_C") and live("file:csrc/moe/topk_softmax.cu")
    # `depgraph why` shows the unresolved op as the root of the chain keeping a kernel
    chain = scan.liveness.chain("file:csrc/cache_kernels.cu")
    assert chain[0].startswith(f"op:{CACHE_NS}::") and len(chain) == 2
    kinds = {(u["kind"], u["name"]) for u in scan.unresolved if u["kind"] == "op_namespace"}
    assert kinds == {("op_namespace", EXT), ("op_namespace", CACHE_NS)}


def test_fetch_used_through_a_variable_stays(scan) -> None:
    assert scan.liveness.is_live("fetch:cutlass")
    assert scan.native_summary.dead_fetches == ["oldlib"]
    assert not any(d.path == "CMakeLists.txt" and d.start_line in (8, 13, 14)
                   for d in scan.plan.deletions)


def test_targets_without_a_known_loader_are_kept_whole(scan) -> None:
    assert scan.native.kept_targets == {
        "cumem_allocator": "nothing is shown to load it: not installed into a package Python "
                           "imports, not linked by another target"}
    live = scan.liveness.is_live
    assert live("target:cumem_allocator") and live("file:csrc/cumem_allocator.cpp")
    # linked by _C: its loader is known, and it lives with _C
    assert "macro_utils" not in scan.native.kept_targets and live("target:macro_utils")
    assert [t.name for t in scan.native_summary.dead_targets] == ["_moe_C", "_legacy_C"]


def test_whole_namespace_read_keeps_every_op(scan) -> None:
    assert scan.liveness.is_live("op:macro_quant::unused_quant")
    assert scan.native_summary.dead_ops == [
        "_C::fused_add_rms_norm", "_C_cache_ops::reshape_and_cache", "_C_cache_ops::swap_blocks",
        "_moe_C::topk_softmax", "macro_extra::old_gelu"]


def test_no_roots_and_no_profile_keeps_what_nothing_shows_dead(tmp_path: Path) -> None:
    # (with csrc/ops.h defining TORCH_EXTENSION_NAME) Nothing is live but what cannot be
    # resolved: the macro-namespace ops (and so _C and
    # _moe_C with their kernels) and cumem_allocator. _extra_C and _legacy_C are imported
    # only by modules nothing imports. macro_quant's ops are called by nothing live: their
    # registrations go, but their kernel fp8_quant.cu stays, because its entry shares line 35
    # with the closing parenthesis of set(MACRO_EXT_SRC ...).
    tree = unresolved_copy(tmp_path)
    result = run_scan(tree, [], use_default_roots=False, use_profile=False)
    deleted = {d.path for d in result.plan.deletions if d.category == "native-file"}
    assert deleted == {"csrc/legacy/legacy_kernels.cpp", "csrc/extra/extra_bindings.cpp",
                       "csrc/extra/gelu_kernels.cu", "csrc/extra/old_gelu.cu"}
    (kept,) = [k for k in result.plan.kept if k.path == "csrc/quant/fp8_quant.cu"]
    assert kept.reason.startswith("dead, but CMakeLists.txt:35 lists it (csrc/quant/fp8_quant.cu)")
    assert {(d.path, d.start_line) for d in result.plan.deletions
            if d.category == "op-registration"} == {
        ("csrc/quant/quant_bindings.cpp", line) for line in (8, 9, 10, 11)}
    assert sorted(t.name for t in result.native_summary.dead_targets) == [
        "_extra_C", "_legacy_C"]


# -- small trees ----------------------------------------------------------------------------------
PKG = {"pkg/__init__.py": "", "pkg/main.py": "import torch\nimport pkg.ext\n"}


def small_scan(tmp_path: Path, files: dict[str, str], roots=("main",)):
    write_tree(tmp_path, {**PKG, **files})
    return run_scan(tmp_path, list(roots), use_default_roots=False, use_profile=False)


def cmake_ranges(result, path: str = "CMakeLists.txt") -> list[tuple[int, int]]:
    return sorted((d.start_line, d.end_line) for d in result.plan.deletions
                  if d.path == path and d.kind == "delete_range")


def test_fetch_mentioned_by_a_remaining_command_is_kept(tmp_path: Path) -> None:
    result = small_scan(tmp_path, {"CMakeLists.txt": """\
include(FetchContent)
FetchContent_Declare(tk GIT_REPOSITORY https://example.com/tk.git)
FetchContent_Populate(tk)
add_library(ext MODULE ext.cc)
install(TARGETS ext LIBRARY DESTINATION pkg)
install(DIRECTORY ${tk_SOURCE_DIR}/python/ DESTINATION pkg/third_party)
""", "ext.cc": "int f() { return 0; }\n"})
    assert cmake_ranges(result) == []
    assert result.native_summary.kept_fetches == ["tk"]
    (kept,) = [k for k in result.plan.kept if k.what == "fetched repository tk"]
    assert kept.reason == ("no live target uses it, but CMakeLists.txt:6 (install) mentions it "
                           "and stays: its use cannot be ruled out")


def test_fetch_goes_with_the_variables_derived_from_it(tmp_path: Path) -> None:
    result = small_scan(tmp_path, {"CMakeLists.txt": """\
include(FetchContent)
FetchContent_Declare(dg GIT_REPOSITORY https://example.com/dg.git)
FetchContent_GetProperties(dg SOURCE_DIR DG_ROOT)
if(NOT dg_POPULATED)
  FetchContent_Populate(dg)
endif()
set(DG_INC ${DG_ROOT}/include)
add_library(ext MODULE ext.cc)
install(TARGETS ext LIBRARY DESTINATION pkg)
add_library(old MODULE old.cc)
target_include_directories(old PRIVATE ${DG_INC})
install(TARGETS old LIBRARY DESTINATION pkg)
""", "ext.cc": "int f() { return 0; }\n", "old.cc": "int g() { return 0; }\n",
        "pkg/old_user.py": "import pkg.old\n"})
    # old is dead (imported by a module nothing imports): it, the variable only it used, the
    # declaration, the GetProperties call and the whole if() block around the populate call
    assert cmake_ranges(result) == [(2, 2), (3, 3), (4, 6), (7, 7), (10, 10), (11, 11),
                                    (12, 12)]
    assert result.native_summary.dead_fetches == ["dg"]


def test_made_available_fetch_stays_while_a_live_target_links_an_unknown_library(
        tmp_path: Path) -> None:
    files = {"CMakeLists.txt": """\
include(FetchContent)
FetchContent_Declare(fmtlib GIT_REPOSITORY https://example.com/fmt.git)
FetchContent_MakeAvailable(fmtlib)
add_library(ext MODULE ext.cc)
target_link_libraries(ext PRIVATE fmt::fmt)
install(TARGETS ext LIBRARY DESTINATION pkg)
""", "ext.cc": "int f() { return 0; }\n"}
    result = small_scan(tmp_path / "a", files)
    assert cmake_ranges(result) == []
    chain = result.liveness.chain("fetch:fmtlib")
    assert result.graph.edges[chain[-2], chain[-1]]["kind"] == "links_fetched"
    files["CMakeLists.txt"] = files["CMakeLists.txt"].replace("fmt::fmt", "-lm")
    result = small_scan(tmp_path / "b", files)
    assert cmake_ranges(result) == [(2, 2), (3, 3)]


def test_function_body_is_never_edited_and_unremovable_calls_keep_their_targets(
        tmp_path: Path) -> None:
    result = small_scan(tmp_path, {"CMakeLists.txt": """\
function(make_lib NAME)
  add_library(${NAME} MODULE ${ARGN})
  set(LAST_LIB ${NAME} PARENT_SCOPE)
endfunction()
function(make_ext NAME)
  add_library(${NAME} MODULE ${ARGN})
  install(TARGETS ${NAME} LIBRARY DESTINATION pkg)
endfunction()
make_ext(ext ext.cc)
make_ext(old old.cc)
make_lib(side side.cc)
""", "ext.cc": "int f() { return 0; }\n", "old.cc": "int g() { return 0; }\n",
        "side.cc": "int h() { return 0; }\n", "pkg/old_user.py": "import pkg.old\n"})
    # old: dead, its call goes (line 10), never the function body's lines 6-7
    assert cmake_ranges(result) == [(10, 10)]
    assert {d.path for d in result.plan.deletions if d.category == "native-file"} == {"old.cc"}
    # side: the call also sets a variable of the caller: kept with its source
    assert result.native.kept_targets["side"] == (
        "created inside make_lib() by a call that cannot be removed alone")
    assert result.liveness.is_live("file:side.cc")


def test_dead_source_whose_entry_shares_a_line_is_kept(tmp_path: Path) -> None:
    result = small_scan(tmp_path, {
        "CMakeLists.txt": """\
add_library(ext MODULE reg.cc k_live.cu k_dead.cu)
install(TARGETS ext LIBRARY DESTINATION pkg)
""",
        "reg.cc": 'TORCH_LIBRARY(pkgops, m) {\n  m.def("live_op", &live_op);\n'
                  '  m.def("dead_op", &dead_op);\n}\n',
        "k_live.cu": "void live_op() {}\n", "k_dead.cu": "void dead_op() {}\n",
        "pkg/main.py": "import torch\nimport pkg.ext\ntorch.ops.pkgops.live_op()\n"})
    # the op registration goes; the kernel file stays: line 1 lists it with other sources
    assert native_deletions(result) == {("delete_range", "reg.cc", 3, 3)}
    (kept,) = [k for k in result.plan.kept if k.path == "k_dead.cu"]
    assert kept.reason.startswith("dead, but CMakeLists.txt:1 lists it (k_dead.cu)")


@pytest.mark.parametrize(("block", "python", "resolved"), [
    ("TORCH_LIBRARY_FRAGMENT(pkgops, m)", "", True),
    # no lowercase letter and no Python reads torch.ops.PKGOPS: looks like a macro
    ("TORCH_LIBRARY_FRAGMENT(PKGOPS, m)", "", False),
    ("TORCH_LIBRARY_FRAGMENT(_C, m)", "torch.ops._C.other\n", True),
    # a wrapper macro whose definition is not in the tree
    ("TORCH_LIBRARY_WRAP(pkgops, m)", "", False),
    # #define'd in the tree
    ("TORCH_LIBRARY(pkgops, m)", "#define pkgops real_ns\n", False),
])
def test_namespace_resolution(tmp_path: Path, block: str, python: str, resolved: bool) -> None:
    reg = f'{block} {{\n  m.def("dead_op", &dead_op);\n}}\n'
    if python.startswith("#define"):
        reg, python = python + reg, ""
    result = small_scan(tmp_path, {
        "CMakeLists.txt": "add_library(ext MODULE reg.cc)\n"
                          "install(TARGETS ext LIBRARY DESTINATION pkg)\n",
        "reg.cc": reg,
        "pkg/main.py": "import torch\nimport pkg.ext\n" + python})
    regs = {d.start_line for d in result.plan.deletions if d.category == "op-registration"}
    assert (regs != set()) is resolved
    assert (result.native.unresolved_namespaces == {}) is resolved


@pytest.mark.parametrize("python", [
    "getattr(torch.ops, name)\n",  # torch.ops read whole
    "from torch import ops as torch_ops\ntorch_ops.pkgops.dead_op()\n",  # an alias
    "import torch as th\nth.ops.pkgops.dead_op.default()\n",
])
def test_python_reads_reach_ops(tmp_path: Path, python: str) -> None:
    result = small_scan(tmp_path, {
        "CMakeLists.txt": "add_library(ext MODULE reg.cc)\n"
                          "install(TARGETS ext LIBRARY DESTINATION pkg)\n",
        "reg.cc": 'TORCH_LIBRARY(pkgops, m) {\n  m.def("dead_op", &dead_op);\n}\n',
        "pkg/main.py": "import torch\nimport pkg.ext\nname = 'x'\n" + python})
    assert result.liveness.is_live("op:pkgops::dead_op")
    assert not any(d.category == "op-registration" for d in result.plan.deletions)
