"""Resolve stage, CMake: targets, sources, fetches, options, includes and unresolved entries.

Expected values were written by hand from reading sample_repos/mini_sglang/sgl-kernel,
sample_repos/native_edge_cases and the snippets below.
"""

from __future__ import annotations

import os
from pathlib import Path

from analyzer.extract.cmake import extract
from analyzer.model import from_jsonable, to_jsonable
from analyzer.resolve.cmake import (
    CMakeOption,
    CMakeProject,
    FetchRepo,
    IncludeEdge,
    LineRange,
    SourceRef,
    Unresolved,
    evaluate,
)
from tests.helpers import SAMPLES

MINI = SAMPLES / "mini_sglang"
EDGE = SAMPLES / "native_edge_cases"
K = "sgl-kernel"
TOP = f"{K}/CMakeLists.txt"
MLA = f"{K}/cmake/flashmla.cmake"


def project_of(root: Path) -> CMakeProject:
    files: set[str] = set()
    for d, _dirs, names in os.walk(root):
        for n in names:
            files.add(Path(d, n).relative_to(root).as_posix())
    facts = {p: extract(p, (root / p).read_bytes()) for p in files
             if p.endswith(("CMakeLists.txt", ".cmake"))}
    return evaluate(facts, files)


def project_of_texts(texts: dict[str, str], other_files: set[str]) -> CMakeProject:
    facts = {p: extract(p, t.encode()) for p, t in texts.items()}
    return evaluate(facts, set(texts) | other_files)


def test_sample_targets_and_sources() -> None:
    proj = project_of(MINI)
    assert proj.problems == ()
    by_name = {t.name: t for t in proj.targets}
    assert list(by_name) == ["common_ops", "flash_ops", "flashmla_ops"]
    common = by_name["common_ops"]
    assert (common.kind, common.file, common.start_line, common.end_line) == (
        "python_add_library", TOP, 33, 33)
    glob = "${CMAKE_CURRENT_SOURCE_DIR}/csrc/moe/*.cu"
    assert common.sources == (
        SourceRef(f"{K}/csrc/common_extension.cc", "csrc/common_extension.cc", TOP, 19, None),
        SourceRef(f"{K}/csrc/elementwise/activation.cu", "csrc/elementwise/activation.cu",
                  TOP, 20, None),
        SourceRef(f"{K}/csrc/elementwise/norm.cu", "csrc/elementwise/norm.cu", TOP, 21, None),
        SourceRef(f"{K}/csrc/gemm/fp8_gemm.cu", "csrc/gemm/fp8_gemm.cu", TOP, 22, None),
        # file(GLOB) on line 25, appended by list(APPEND) on line 26; legacy/ not matched
        SourceRef(f"{K}/csrc/moe/align.cu", glob, TOP, 25, None),
        SourceRef(f"{K}/csrc/moe/topk.cu", glob, TOP, 25, None),
    )
    assert common.include_dirs == (f"{K}/include", "@fetch:repo-cutlass/include")
    assert common.fetches == ("repo-cutlass",)
    assert common.config_ranges == tuple(LineRange(TOP, n, n) for n in (34, 35, 36, 37))
    assert common.install_destination == "mini_kernel"
    assert common.conditions == ()


def test_sample_fa3_target_under_option() -> None:
    flash = {t.name: t for t in project_of(MINI).targets}["flash_ops"]
    assert flash.conditions == ("ENABLE_FA3",)
    assert flash.start_line == 44
    assert [(s.path, s.line, s.conditions) for s in flash.sources] == [
        (f"{K}/csrc/flash_extension.cc", 41, ("ENABLE_FA3",)),
        (f"{K}/csrc/flash/flash_fwd.cu", 42, ("ENABLE_FA3",)),
    ]
    assert flash.config_ranges == (LineRange(TOP, 45, 45), LineRange(TOP, 46, 46))
    assert flash.install_destination == "mini_kernel"
    assert flash.fetches == ("repo-cutlass",)


def test_sample_flashmla_from_included_file() -> None:
    mla = {t.name: t for t in project_of(MINI).targets}["flashmla_ops"]
    assert (mla.file, mla.start_line) == (MLA, 18)
    assert mla.sources == (
        # relative entries resolve against the including CMakeLists.txt's directory
        SourceRef(f"{K}/csrc/flashmla_extension.cc", "csrc/flashmla_extension.cc", MLA, 12,
                  None),
        SourceRef(f"{K}/csrc/flashmla/mla_metadata.cu", "csrc/flashmla/mla_metadata.cu", MLA,
                  13, None),
        SourceRef(None, "${repo-flashmla_SOURCE_DIR}/csrc/python_api.cpp", MLA, 14,
                  "repo-flashmla"),
        SourceRef(None, "${repo-flashmla_SOURCE_DIR}/csrc/sm90/splitkv_mla.cu", MLA, 15,
                  "repo-flashmla"),
    )
    assert mla.include_dirs == ("@fetch:repo-flashmla/csrc", f"{K}/csrc/flashmla")
    assert mla.config_ranges == (LineRange(MLA, 19, 22), LineRange(MLA, 23, 23),
                                 LineRange(MLA, 24, 24))
    assert mla.install_destination == "mini_kernel"
    assert mla.fetches == ("repo-flashmla",)


def test_sample_fetches_options_includes() -> None:
    proj = project_of(MINI)
    assert proj.fetches == (
        FetchRepo("repo-cutlass", TOP, 7, 11, "https://github.com/example/cutlass-lite",
                  (LineRange(TOP, 12, 12),)),
        FetchRepo("repo-flashmla", MLA, 4, 8, "https://github.com/example/flashmla-lite",
                  (LineRange(MLA, 9, 9),)),
    )
    assert proj.options == (CMakeOption("ENABLE_FA3", "OFF", TOP, 14),)
    # include(FetchContent) is a CMake module: no edge
    assert proj.includes == (IncludeEdge(
        TOP, MLA, "${CMAKE_CURRENT_LIST_DIR}/cmake/flashmla.cmake", 49, 49, 49, "include"),)
    assert proj.unresolved == ()


def test_malformed_sample_unresolved_entries() -> None:
    proj = project_of(EDGE)
    edge = {t.name: t for t in proj.targets}
    assert list(edge) == ["edge_ops", "edge_tool"]
    assert [(s.path, s.raw, s.line) for s in edge["edge_ops"].sources] == [
        ("src/registrations.cc", "src/registrations.cc", 5),
        ("src/kernel.cu", "src/kernel.cu", 6),
        (None, "${NOT_DEFINED_ANYWHERE}/generated.cu", 7),
        (None, "$<$<BOOL:${WITH_EXTRA}>:src/extra.cu>", 8),
    ]
    # add_executable recovered from the unclosed set() in cmake/broken.cmake; tool.cc is
    # not in the repo
    assert [(s.path, s.raw) for s in edge["edge_tool"].sources] == [(None, "src/tool.cc")]
    assert edge["edge_ops"].config_ranges == (LineRange("CMakeLists.txt", 14, 14),)
    # target_link_libraries(edge_tool PRIVATE edge_ops) configures edge_tool
    assert edge["edge_tool"].config_ranges == (LineRange("cmake/broken.cmake", 4, 4),)
    assert proj.unresolved == (
        Unresolved("CMakeLists.txt", 7, "${NOT_DEFINED_ANYWHERE}/generated.cu",
                   "source of edge_ops: undefined variable ${NOT_DEFINED_ANYWHERE}"),
        Unresolved("CMakeLists.txt", 8, "$<$<BOOL:${WITH_EXTRA}>:src/extra.cu>",
                   "source of edge_ops: generator expression"),
        Unresolved("CMakeLists.txt", 17, "${SOME_UNKNOWN_DIR}/helpers.cmake",
                   "undefined variable ${SOME_UNKNOWN_DIR}"),
        Unresolved("cmake/broken.cmake", 3, "src/tool.cc",
                   "source of edge_tool: no such file in the repository: src/tool.cc"),
    )
    assert [(i.to_file, i.line) for i in proj.includes] == [
        (None, 17), ("cmake/broken.cmake", 18)]


def test_conditional_appends_globs_and_nested_variables() -> None:
    proj = project_of_texts({
        "CMakeLists.txt": """\
set(KIND cuda)
set(DIR_cuda kernels)
set(SRCS main.cc)
if(USE_EXTRA)
  list(APPEND SRCS
       extra.cc)
else()
  set(SRCS ${SRCS} fallback.cc)
endif()
file(GLOB_RECURSE GEN RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${DIR_${KIND}}/*.cu)
add_executable(app ${SRCS} ${GEN})
""",
    }, {"main.cc", "extra.cc", "fallback.cc", "kernels/a.cu", "kernels/sub/b.cu", "other/c.cu"})
    (app,) = proj.targets
    assert [(s.path, s.line, s.conditions) for s in app.sources] == [
        ("main.cc", 3, ()),
        ("extra.cc", 6, ("USE_EXTRA",)),
        # else branch: set() under other conditions adds to the value (both branches kept)
        ("fallback.cc", 8, ("NOT (USE_EXTRA)",)),
        ("kernels/a.cu", 10, ()),
        ("kernels/sub/b.cu", 10, ()),
    ]


def test_add_subdirectory_child_scope_and_functions() -> None:
    proj = project_of_texts({
        "CMakeLists.txt": """\
set(COMMON_FLAGS -O2)
function(make_ext NAME)
  cmake_parse_arguments(ARG "" "DEST" "SOURCES" ${ARGN})
  add_library(${NAME} MODULE ${ARG_SOURCES})
  install(TARGETS ${NAME} LIBRARY DESTINATION ${ARG_DEST})
endfunction()
option(WITH_SUB "build sub" ON)
if(WITH_SUB)
  add_subdirectory(sub)
endif()
make_ext(top_ext DEST pkg SOURCES top.cc)
add_library(after STATIC ${SUB_ONLY} top.cc)
""",
        "sub/CMakeLists.txt": """\
set(SUB_ONLY sub.cc)
make_ext(sub_ext DEST pkg/sub SOURCES ${SUB_ONLY} ${CMAKE_CURRENT_SOURCE_DIR}/more.cc)
""",
    }, {"top.cc", "sub/sub.cc", "sub/more.cc"})
    by_name = {t.name: t for t in proj.targets}
    assert list(by_name) == ["sub_ext", "top_ext", "after"]
    sub = by_name["sub_ext"]
    assert [s.path for s in sub.sources] == ["sub/sub.cc", "sub/more.cc"]
    assert (sub.file, sub.start_line, sub.install_destination) == ("CMakeLists.txt", 4, "pkg/sub")
    assert sub.conditions == ("WITH_SUB",)
    assert by_name["top_ext"].install_destination == "pkg"
    # SUB_ONLY was set in the child scope: unknown in the parent
    assert [(s.path, s.raw) for s in by_name["after"].sources] == [
        (None, "${SUB_ONLY}"), ("top.cc", "top.cc")]
    assert proj.includes == (IncludeEdge("CMakeLists.txt", "sub/CMakeLists.txt", "sub", 9, 9, 9,
                                         "add_subdirectory"),)
    assert proj.options == (CMakeOption("WITH_SUB", "ON", "CMakeLists.txt", 7),)


def test_every_top_level_cmakelists_is_evaluated() -> None:
    proj = project_of_texts({
        "a/CMakeLists.txt": "add_library(liba a.cc)\n",
        "b/CMakeLists.txt": "add_library(libb b.cc)\nadd_custom_target(docs ALL)\n",
    }, {"a/a.cc", "b/b.cc"})
    assert [(t.name, t.kind, [s.path for s in t.sources]) for t in proj.targets] == [
        ("liba", "add_library", ["a/a.cc"]), ("libb", "add_library", ["b/b.cc"]),
        ("docs", "add_custom_target", [])]


def test_fetch_declare_makeavailable_and_external_project() -> None:
    proj = project_of_texts({"CMakeLists.txt": """\
include(FetchContent)
FetchContent_Declare(json URL https://example.com/json.tar.gz)
FetchContent_Declare(fmt GIT_REPOSITORY https://example.com/fmt.git)
FetchContent_MakeAvailable(json fmt)
include(ExternalProject)
ExternalProject_Add(ext_proj GIT_REPOSITORY https://example.com/ext.git)
add_library(uses STATIC ${fmt_SOURCE_DIR}/src/format.cc)
target_include_directories(uses PUBLIC $<BUILD_INTERFACE:${json_SOURCE_DIR}/include>)
"""}, set())
    assert [(f.name, f.url, f.populate_ranges) for f in proj.fetches] == [
        ("json", "https://example.com/json.tar.gz", (LineRange("CMakeLists.txt", 4, 4),)),
        ("fmt", "https://example.com/fmt.git", (LineRange("CMakeLists.txt", 4, 4),)),
        ("ext_proj", "https://example.com/ext.git", ()),
    ]
    (uses,) = proj.targets
    assert uses.sources == (SourceRef(None, "${fmt_SOURCE_DIR}/src/format.cc",
                                      "CMakeLists.txt", 7, "fmt"),)
    assert uses.include_dirs == ("@fetch:json/include",)
    assert uses.fetches == ("fmt", "json")


def test_garbage_facts_never_raise() -> None:
    texts = {
        "CMakeLists.txt": "include(CMakeLists.txt)\nadd_subdirectory(.)\nfunction(f)\n"
                          "f()\nforeach(x RANGE 3)\nset(Y ${x}\nadd_library()\nlist()\n"
                          "file(GLOB)\ninstall(TARGETS)\nset_property(TARGET)\n",
        "x/CMakeLists.txt": "macro(m)\nm()\nendmacro()\nm()\nadd_subdirectory(..)\n",
    }
    proj = project_of_texts(texts, set())
    assert isinstance(proj, CMakeProject)


def test_json_round_trip() -> None:
    for root in (MINI, EDGE):
        proj = project_of(root)
        assert from_jsonable(CMakeProject, to_jsonable(proj)) == proj


HELPERS = """\
function(run_py OUT EXPR)
  execute_process(COMMAND python -c "${EXPR}" OUTPUT_VARIABLE _OUT)
  set(${OUT} ${_OUT} PARENT_SCOPE)
endfunction()
function(define_ext NAME)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "DEST" "SOURCES;INCLUDES;LIBS")
  run_py(ABI "print(1)")
  add_library(${NAME} MODULE ${ARG_SOURCES})
  add_custom_target(prep${NAME})
  add_dependencies(${NAME} prep${NAME})
  target_include_directories(${NAME} PRIVATE ${ARG_INCLUDES})
  target_link_libraries(${NAME} PRIVATE torch ${ARG_LIBS})
  install(TARGETS ${NAME} LIBRARY DESTINATION ${ARG_DEST})
endfunction()
function(leaky NAME)
  add_library(${NAME} STATIC ${ARGN})
  set(LAST_LIB ${NAME} PARENT_SCOPE)
endfunction()
function(tweaks NAME)
  add_library(${NAME} STATIC ${ARGN})
  target_compile_definitions(helper PRIVATE FROM_${NAME})
endfunction()
macro(mac NAME)
  add_library(${NAME} STATIC ${ARGN})
endmacro()
"""


def test_targets_created_in_functions_belong_to_the_call() -> None:
    proj = project_of_texts({"cmake/helpers.cmake": HELPERS, "CMakeLists.txt": """\
include(cmake/helpers.cmake)
add_library(helper STATIC h.cc)
set(INC_DIR inc)
define_ext(ext_a DEST pkg
  SOURCES a.cc
  INCLUDES ${INC_DIR}
  LIBS helper)
target_compile_definitions(ext_a PRIVATE X=1)
foreach(n b c)
  define_ext(ext_${n} DEST pkg SOURCES ${n}.cc)
endforeach()
leaky(leak_lib a.cc)
tweaks(tweak_lib a.cc)
mac(mac_lib a.cc)
"""}, {"h.cc", "a.cc", "b.cc", "c.cc"})
    by_name = {t.name: t for t in proj.targets}
    a = by_name["ext_a"]
    # created on line 8 of the helpers, attributed to the call on lines 4-7
    assert (a.file, a.start_line, a.created_in) == ("cmake/helpers.cmake", 8, "define_ext")
    assert a.call_site == LineRange("CMakeLists.txt", 4, 7)
    # configuring calls in the function body are shared by every call: not its ranges
    assert a.config_ranges == (LineRange("CMakeLists.txt", 8, 8),)
    assert a.install_destination == "pkg"
    assert (a.links, a.depends, a.variables) == (("torch", "helper"), ("prepext_a",),
                                                  ("INC_DIR",))
    assert by_name["prepext_a"].call_site == LineRange("CMakeLists.txt", 4, 7)
    # a call inside a loop: one call site for every iteration
    assert by_name["ext_b"].call_site == by_name["ext_c"].call_site == LineRange(
        "CMakeLists.txt", 10, 10)
    # keywords not given expand to nothing (not to "${ARG_LIBS}")
    assert by_name["ext_b"].links == ("torch",)
    # calls whose removal would lose something else: no call site, and listed as unresolved
    for name in ("leak_lib", "tweak_lib", "mac_lib"):
        assert by_name[name].call_site is None and by_name[name].created_in is not None
    assert by_name["helper"].created_in is None
    reasons = {u.what: u.reason for u in proj.unresolved}
    assert reasons["leak_lib"] == (
        "target created in leaky() called at CMakeLists.txt:12; the call cannot be removed "
        "alone: set() at cmake/helpers.cmake:17 sets a variable of the caller")
    assert reasons["tweak_lib"].endswith(
        "target_compile_definitions() at cmake/helpers.cmake:21 configures a target this call "
        "does not create")
    assert reasons["mac_lib"].endswith("a macro body runs in the caller's scope")
    assert from_jsonable(CMakeProject, to_jsonable(proj)) == proj


def test_fetch_declared_twice_and_made_available() -> None:
    proj = project_of_texts({"CMakeLists.txt": """\
include(FetchContent)
if(LOCAL_CUTLASS)
  FetchContent_Declare(cutlass SOURCE_DIR ${LOCAL_CUTLASS})
else()
  FetchContent_Declare(cutlass GIT_REPOSITORY https://example.com/cutlass.git)
endif()
FetchContent_MakeAvailable(cutlass)
FetchContent_Declare(flashmla GIT_REPOSITORY https://example.com/flashmla.git)
FetchContent_Populate(flashmla)
"""}, set())
    cutlass, flashmla = proj.fetches
    assert (cutlass.start_line, cutlass.declare_ranges, cutlass.populate_ranges,
            cutlass.make_available) == (3, (LineRange("CMakeLists.txt", 5, 5),),
                                        (LineRange("CMakeLists.txt", 7, 7),), True)
    assert (flashmla.declare_ranges, flashmla.make_available) == ((), False)
