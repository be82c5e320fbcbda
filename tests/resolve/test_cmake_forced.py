"""Resolve stage, CMake: options forced for the whole evaluation (a dropped feature's
``cmake_options``), and what sits under the ``if()``s they make false.

Expected values were written by hand from reading sample_repos/cmake_option_fold/CMakeLists.txt:
``option(ENABLE_FOO ... ON)`` at 4, ``set(ENABLE_FOO ON)`` under ``if(DEFINED ENV{FOO_HOME})``
at 6; ``set(CORE_SOURCES "csrc/core.cc")`` at 9-11; the ``if(ENABLE_FOO)`` block 13-19 sets
FOO_SOURCES (``csrc/foo.cc``, 14), appends ``csrc/foo_extra.cc`` to CORE_SOURCES (15) and
creates foo_ops (16); core_ops is created at 21; ``if(NOT ENABLE_FOO)`` at 24-26 and
``if(ENABLE_FOO AND CMAKE_CUDA_COMPILER)`` at 28-30; and from the snippets below.
"""

from __future__ import annotations

from analyzer.extract.cmake import extract
from analyzer.resolve.cmake import OffBlock, SourceRef, evaluate
from tests.helpers import SAMPLES
from tests.resolve.test_cmake import project_of

FOLD = SAMPLES / "cmake_option_fold"
TOP = "CMakeLists.txt"
OFF_FOO = "if(ENABLE_FOO) is false with ENABLE_FOO=OFF forced"


def evaluate_texts(texts: dict[str, str], others: set[str], options: dict[str, bool] | None):
    facts = {p: extract(p, t.encode()) for p, t in texts.items()}
    return evaluate(facts, set(texts) | others, options=options)


def fold_project(options: dict[str, bool] | None):
    files = {TOP, "csrc/core.cc", "csrc/foo.cc", "csrc/foo_extra.cc"}
    facts = {TOP: extract(TOP, (FOLD / TOP).read_bytes())}
    return evaluate(facts, files, options=options)


def test_dropped_option_marks_the_target_and_the_source_entry_under_its_if() -> None:
    proj = fold_project({"ENABLE_FOO": False})
    assert proj.problems == ()
    assert proj.forced == (("ENABLE_FOO", False),)
    by_name = {t.name: t for t in proj.targets}
    assert list(by_name) == ["foo_ops", "core_ops"]
    foo, core = by_name["foo_ops"], by_name["core_ops"]
    assert (foo.start_line, foo.conditions, foo.off) == (16, ("ENABLE_FOO",), OFF_FOO)
    assert foo.sources == (
        SourceRef("csrc/foo.cc", "csrc/foo.cc", TOP, 14, None, ("ENABLE_FOO",), True),)
    assert (core.start_line, core.conditions, core.off) == (21, (), None)
    assert core.sources == (
        SourceRef("csrc/core.cc", "csrc/core.cc", TOP, 10, None, (), False),
        SourceRef("csrc/foo_extra.cc", "csrc/foo_extra.cc", TOP, 15, None, ("ENABLE_FOO",),
                  True),
    )
    # if(NOT ENABLE_FOO) runs; if(ENABLE_FOO AND CMAKE_CUDA_COMPILER) does not, whatever the
    # compiler; if(DEFINED ENV{FOO_HOME}) is not decided
    assert proj.off_blocks == (
        OffBlock(TOP, 13, 19, OFF_FOO, ("ENABLE_FOO",)),
        OffBlock(TOP, 28, 30,
                 "if(ENABLE_FOO AND CMAKE_CUDA_COMPILER) is false with ENABLE_FOO=OFF forced",
                 ("ENABLE_FOO",)),
    )


def test_forced_on_turns_off_the_not_branch_instead() -> None:
    proj = fold_project({"ENABLE_FOO": True})
    assert [t.off for t in proj.targets] == [None, None]
    assert [s.off for t in proj.targets for s in t.sources] == [False, False, False]
    assert proj.off_blocks == (
        OffBlock(TOP, 24, 26, "if(NOT ENABLE_FOO) is false with ENABLE_FOO=ON forced",
                 ("ENABLE_FOO",)),)


def test_without_forced_options_nothing_is_off() -> None:
    for options in (None, {}, {"UNRELATED": False}):
        proj = fold_project(options)
        assert proj.off_blocks == ()
        assert all(t.off is None for t in proj.targets)
        assert not any(s.off for t in proj.targets for s in t.sources)
    # the sample as the other resolve tests read it (every file of the folder)
    assert [t.off for t in project_of(FOLD).targets] == [None, None]


def test_forced_value_wins_over_set_and_option_for_every_read() -> None:
    text = """
option(X "x" ON)
set(X ON)
add_library(t_${X} a.cc)
set(Y ${X})
add_library(u_${Y} a.cc)
foreach(v IN LISTS X)
    add_library(w_${v} a.cc)
endforeach()
"""
    forced = evaluate_texts({TOP: text}, {"a.cc"}, {"X": False})
    assert [t.name for t in forced.targets] == ["t_OFF", "u_OFF", "w_OFF"]
    free = evaluate_texts({TOP: text}, {"a.cc"}, None)
    assert [t.name for t in free.targets] == ["t_ON", "u_ON", "w_ON"]
    # the option is still listed with its default as written
    assert [(o.name, o.default) for o in forced.options] == [("X", "ON")]


def test_a_repository_declared_only_under_a_false_if_is_not_fetched() -> None:
    text = """include(FetchContent)
if(USE_X)
    FetchContent_Declare(repo-x GIT_REPOSITORY https://example.com/x)
    FetchContent_MakeAvailable(repo-x)
endif()
FetchContent_Declare(repo-y URL https://example.com/y)
if(NOT USE_X)
    FetchContent_Populate(repo-y)
endif()
"""
    proj = evaluate_texts({TOP: text}, set(), {"USE_X": False})
    assert {f.name: f.off for f in proj.fetches} == {
        "repo-x": "if(USE_X) is false with USE_X=OFF forced", "repo-y": None}
    proj = evaluate_texts({TOP: text}, set(), {"USE_X": True})
    # repo-y's populate call is off, its declaration is not: it may still be fetched
    assert {f.name: f.off for f in proj.fetches} == {"repo-x": None, "repo-y": None}


def test_conditions_reach_into_includes_and_function_bodies() -> None:
    texts = {
        TOP: """function(add_ext name)
    if(USE_X)
        add_library(${name}_x x.cc)
    endif()
    add_library(${name} a.cc)
endfunction()
add_ext(core)
if(USE_X)
    include(cmake/x.cmake)
endif()
""",
        "cmake/x.cmake": "add_library(from_include x.cc)\n",
    }
    proj = evaluate_texts(texts, {"a.cc", "x.cc"}, {"USE_X": False})
    off = {t.name: t.off for t in proj.targets}
    assert off == {"core_x": "if(USE_X) is false with USE_X=OFF forced", "core": None,
                   "from_include": "if(USE_X) is false with USE_X=OFF forced"}
    # blocks are the file's own if() statements; the function body's one is listed too (the
    # plan never edits it), the included file has none
    assert [(b.file, b.start_line, b.end_line) for b in proj.off_blocks] == [
        (TOP, 2, 4), (TOP, 8, 10)]


def test_a_block_with_a_live_else_branch_or_an_undecided_branch_is_not_off() -> None:
    text = """if(USE_X)
    add_library(a a.cc)
else()
    add_library(b a.cc)
endif()
if(USE_X)
    add_library(c a.cc)
elseif(OTHER)
    add_library(d a.cc)
endif()
if(USE_X)
    add_library(e a.cc)
elseif(NOT USE_X AND OTHER)
    add_library(f a.cc)
endif()
if(USE_X)
endif()
"""
    proj = evaluate_texts({TOP: text}, {"a.cc"}, {"USE_X": False})
    assert {t.name: t.off is not None for t in proj.targets} == {
        "a": True, "b": False, "c": True, "d": False, "e": True, "f": False}
    assert proj.off_blocks == ()
    proj = evaluate_texts({TOP: text}, {"a.cc"}, {"USE_X": True})
    assert {t.name: t.off is not None for t in proj.targets} == {
        "a": False, "b": True, "c": False, "d": True, "e": False, "f": True}
    assert proj.off_blocks == ()
