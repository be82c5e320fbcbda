"""Graph and plan stages, native half: a dropped feature's ``cmake_options`` fold the CMake
``if()`` blocks they decide.

Expectations were written by hand from reading sample_repos/cmake_option_fold:
- depgraph.toml: feature ``foo`` declares only ``cmake_options = { ENABLE_FOO = false }`` and
  is dropped by default; the entry point is ``foldpkg.main``;
- CMakeLists.txt: ``option(ENABLE_FOO ... ON)`` at 4 and ``set(ENABLE_FOO ON)`` at 6 (under
  ``if(DEFINED ENV{FOO_HOME})``, 5-7); the ``if(ENABLE_FOO)`` block 13-19 creates foo_ops
  from csrc/foo.cc (FOO_SOURCES, 14) and appends csrc/foo_extra.cc to core_ops' CORE_SOURCES
  (15); core_ops (csrc/core.cc) at 21, installed into foldpkg at 22; ``if(NOT ENABLE_FOO)``
  at 24-26 configures core_ops; ``if(ENABLE_FOO AND CMAKE_CUDA_COMPILER)`` at 28-30 too;
- foldpkg/main.py imports core_ops, calls ``torch.ops.fold_core.scale`` (csrc/core.cc), and
  imports foo_ops in ``try: ... except ImportError``. Nothing calls ``fold_foo::foo``
  (csrc/foo.cc).
The smaller trees below are written in the tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.config.options import ScanOptions
from analyzer.pipeline.scan import run_scan
from analyzer.pipeline.verify import verify_scan
from tests.helpers import SAMPLES, prune_copy, write_tree

FOLD = SAMPLES / "cmake_option_fold"
TOP = "CMakeLists.txt"
NATIVE = ("cmake-block", "cmake-file", "native-file", "op-registration")


def native_deletions(result) -> set[tuple]:
    return {(d.kind, d.path, d.start_line, d.end_line) for d in result.plan.deletions
            if d.category in NATIVE}


@pytest.fixture(scope="module")
def dropped():
    return run_scan(FOLD, [])


@pytest.fixture(scope="module")
def kept():
    return run_scan(FOLD, [], keep=("foo",))


def test_dropped_feature_folds_its_blocks_and_the_sources_only_they_list(dropped) -> None:
    assert dropped.profile.drops == ("foo",)
    assert native_deletions(dropped) == {
        ("delete_range", TOP, 13, 19),  # if(ENABLE_FOO) ... endif(), whole
        ("delete_range", TOP, 28, 30),  # if(ENABLE_FOO AND CMAKE_CUDA_COMPILER), whole
        ("delete_file", "csrc/foo.cc", None, None),  # only foo_ops compiles it
        ("delete_file", "csrc/foo_extra.cc", None, None),  # listed only at 15
    }
    by_start = {d.start_line: d for d in dropped.plan.deletions if d.category == "cmake-block"}
    assert by_start[13].reason == ("if(ENABLE_FOO) is false with ENABLE_FOO=OFF forced: none "
                                   "of the block runs")
    assert by_start[28].reason.startswith("if(ENABLE_FOO AND CMAKE_CUDA_COMPILER) is false")
    # every one of them belongs to the feature whose option decides it
    assert {d.feature for d in dropped.plan.deletions if d.category in NATIVE} == {"foo"}
    report = {f.name: f for f in dropped.features}["foo"]
    assert (report.files_removable, report.lines_removable) == (2, 7 + 3 + 7 + 2)


def test_the_target_under_the_false_if_is_not_built(dropped) -> None:
    live = dropped.liveness.is_live
    assert not live("target:foo_ops") and live("target:core_ops")
    assert dropped.native.off_targets == {
        "foo_ops": "if(ENABLE_FOO) is false with ENABLE_FOO=OFF forced"}
    # main.py's try-import still reaches the extension module, which nothing builds
    assert live("py:foldpkg.foo_ops")
    assert not dropped.graph.has_edge("py:foldpkg.foo_ops", "target:foo_ops")
    assert [t.name for t in dropped.native_summary.dead_targets] == ["foo_ops"]
    assert dropped.native_summary.tus_removed == 2
    assert dropped.native_summary.dead_ops == ["fold_foo::foo"]


def test_what_the_forced_value_leaves_running_stays(dropped) -> None:
    lines = {(d.path, d.start_line) for d in dropped.plan.deletions}
    # if(NOT ENABLE_FOO) is true; set(ENABLE_FOO ON) is read by it; the option stays
    for line in (4, 5, 6, 9, 21, 22, 24, 25):
        assert (TOP, line) not in lines
    assert dropped.liveness.is_live("file:csrc/core.cc")
    assert not [k for k in dropped.plan.kept if k.path == TOP]


def test_kept_feature_leaves_the_build_alone(kept) -> None:
    assert kept.profile.drops == ()
    assert kept.native.off_targets == {} and kept.native.project.off_blocks == ()
    live = kept.liveness.is_live
    assert live("target:foo_ops") and live("file:csrc/foo.cc")
    assert live("file:csrc/foo_extra.cc")
    # only the m.def of the op nothing calls, as without any profile
    assert native_deletions(kept) == {("delete_range", "csrc/foo.cc", 6, 6)}
    assert [t.name for t in kept.native_summary.dead_targets] == []


def test_a_kept_target_keeps_its_block(tmp_path: Path) -> None:
    result = run_scan(FOLD, [], keep_targets=("foo_ops",))
    assert result.liveness.is_live("target:foo_ops")
    assert native_deletions(result) == {("delete_range", TOP, 28, 30)}
    kept = {k.path: k for k in result.plan.kept if k.path in (TOP, "csrc/foo_extra.cc")}
    assert kept[TOP].line == 13 and kept[TOP].reason == (
        "if(ENABLE_FOO) is false with ENABLE_FOO=OFF forced, so none of it runs, but it "
        "creates target foo_ops, which stays live: kept")
    # core_ops does not compile it, but line 15 lists it and stays
    assert kept["csrc/foo_extra.cc"].reason.startswith("dead, but CMakeLists.txt:15 lists it")


def test_applied_plan_verifies(tmp_path: Path) -> None:
    tree, manifest = prune_copy(FOLD, tmp_path)
    assert not (tree / "csrc/foo.cc").exists() and not (tree / "csrc/foo_extra.cc").exists()
    text = (tree / TOP).read_text()
    assert "Python_add_library(foo_ops" not in text and "ENABLE_FOO AND" not in text
    assert "if(NOT ENABLE_FOO)" in text and "option(ENABLE_FOO" in text
    verification = verify_scan(tree, ScanOptions(), before=manifest)
    assert verification.problems == []
    assert native_deletions(run_scan(tree, [])) == set()


# -- what needs a folded block keeps it -------------------------------------------------------
PROFILE = """entry_points = ["pkg.app"]
default_drops = ["x"]

[features.x]
cmake_options = { USE_X = false }
"""
APP = """from pkg import main_ops  # noqa: F401

try:
    from pkg import x_ops  # noqa: F401
except ImportError:
    x_ops = None
"""


def test_a_block_setting_a_variable_read_outside_stays(tmp_path: Path) -> None:
    cmake = """cmake_minimum_required(VERSION 3.26)
project(refuse LANGUAGES CXX)
option(USE_X "x" ON)
if(USE_X)
    set(EXTRA_FLAGS -DWITH_X)
    Python_add_library(x_ops MODULE WITH_SOABI x.cc)
    install(TARGETS x_ops LIBRARY DESTINATION pkg)
endif()
Python_add_library(main_ops MODULE WITH_SOABI main.cc)
target_compile_options(main_ops PRIVATE ${EXTRA_FLAGS})
install(TARGETS main_ops LIBRARY DESTINATION pkg)
"""
    write_tree(tmp_path, {TOP: cmake, "depgraph.toml": PROFILE, "pkg/__init__.py": "",
                          "pkg/app.py": APP, "main.cc": "int main_fn() { return 0; }\n",
                          "x.cc": "int x_fn() { return 1; }\n"})
    result = run_scan(tmp_path, [])
    assert not result.liveness.is_live("target:x_ops")
    # the dead target goes by the rules for dead targets; set(EXTRA_FLAGS) stays
    assert native_deletions(result) == {
        ("delete_range", TOP, 6, 6), ("delete_range", TOP, 7, 7),
        ("delete_file", "x.cc", None, None)}
    kept = [k for k in result.plan.kept if k.path == TOP]
    assert [(k.line, k.reason) for k in kept] == [(4, (
        "if(USE_X) is false with USE_X=OFF forced, so none of it runs, but it sets "
        "EXTRA_FLAGS, which CMakeLists.txt:10 (target_compile_options) reads and nothing that "
        "stays sets: kept"))]


def test_a_function_body_is_never_edited(tmp_path: Path) -> None:
    cmake = """cmake_minimum_required(VERSION 3.26)
project(fn LANGUAGES CXX)
function(add_ext name)
    if(USE_X)
        Python_add_library(${name}_x MODULE WITH_SOABI x.cc)
        install(TARGETS ${name}_x LIBRARY DESTINATION pkg)
    endif()
    Python_add_library(${name} MODULE WITH_SOABI main.cc)
    install(TARGETS ${name} LIBRARY DESTINATION pkg)
endfunction()
add_ext(main_ops)
"""
    write_tree(tmp_path, {TOP: cmake, "depgraph.toml": PROFILE, "pkg/__init__.py": "",
                          "pkg/app.py": APP, "main.cc": "int main_fn() { return 0; }\n",
                          "x.cc": "int x_fn() { return 1; }\n"})
    result = run_scan(tmp_path, [])
    assert result.native.off_targets == {
        "main_ops_x": "if(USE_X) is false with USE_X=OFF forced"}
    # one call creates both targets: deleting it would take main_ops too, so they live
    # together and nothing is deleted
    assert result.liveness.is_live("target:main_ops_x")
    assert native_deletions(result) == set()
    kept = [k for k in result.plan.kept if k.path == TOP]
    assert [(k.line, k.reason) for k in kept] == [(4, (
        "if(USE_X) is false with USE_X=OFF forced, so none of it runs, but it is in or holds "
        "a function()/macro() body, which is never edited: kept"))]
