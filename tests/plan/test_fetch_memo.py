"""The fetched repositories' derived variables and mentions (analyzer.plan.cmake_vars) are found
once per set of CMake facts: the same facts give the memo's answer, other facts of the same
paths (a build a plan leaves, parsed again) their own."""

from __future__ import annotations

from analyzer.extract.cmake import extract
from analyzer.plan.cmake_vars import derived_vars, fetch_derived_vars, mentions_of
from analyzer.resolve.cmake_model import FetchRepo

CUTLASS = FetchRepo("cutlass", "CMakeLists.txt", 1, 1, "https://example.invalid/cutlass.git",
                    ())

# line 1 declares the repository; line 2 derives a variable from its source dir; line 3 uses
# the derived variable; line 4 names nothing of it
ORIGINAL = (b"FetchContent_Declare(cutlass GIT_REPOSITORY https://example.invalid/c.git)\n"
            b"set(CT_INC ${cutlass_SOURCE_DIR}/include)\n"
            b"include_directories(${CT_INC})\n"
            b"set(OTHER 1)\n")
# the same file with line 2 deleted (what a plan leaves): nothing derives CT_INC (a name
# without the repository's in it)
PRUNED = (b"FetchContent_Declare(cutlass GIT_REPOSITORY https://example.invalid/c.git)\n"
          b"include_directories(${CT_INC})\n"
          b"set(OTHER 1)\n")


def _commands(facts):
    return {path: list(f.commands) for path, f in facts.items()}


def test_each_set_of_facts_gets_its_own_answer():
    original = {"CMakeLists.txt": extract("CMakeLists.txt", ORIGINAL)}
    pruned = {"CMakeLists.txt": extract("CMakeLists.txt", PRUNED)}
    assert "CT_INC" in derived_vars("cutlass", original, by_name=False)
    # the same path, other facts: not the memo of the first
    assert "CT_INC" not in derived_vars("cutlass", pruned, by_name=False)
    # and back: the first facts' answer again
    assert "CT_INC" in derived_vars("cutlass", original, by_name=False)
    # by name, the cautious reading: a variable set from a command naming the repository
    assert derived_vars("cutlass", original) == frozenset(
        fetch_derived_vars("cutlass", _commands(original)))


def test_mentions_follow_the_facts_they_are_asked_of():
    original = {"CMakeLists.txt": extract("CMakeLists.txt", ORIGINAL)}
    pruned = {"CMakeLists.txt": extract("CMakeLists.txt", PRUNED)}
    # lines 2 and 3 of the original mention it (line 1 is the fetch's own declaration)
    assert [c.start_line for _p, c in mentions_of(CUTLASS, original)] == [2, 3]
    # in the pruned file nothing derives CT_INC: line 2 (the old line 3) names only it
    assert [c.start_line for _p, c in mentions_of(CUTLASS, pruned)] == []
