"""Extract stage, CMake: commands, arguments, line ranges and enclosing conditions.

Expected values were written by hand from reading sample_repos/mini_sglang/sgl-kernel and
sample_repos/native_edge_cases, and the snippets below.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.extract.cmake import CMakeArg, CmakeFacts, extract
from analyzer.model import from_jsonable, to_jsonable
from tests.helpers import SAMPLES

KERNEL = SAMPLES / "mini_sglang" / "sgl-kernel"
EDGE = SAMPLES / "native_edge_cases"


def facts_of(path: Path, name: str = "CMakeLists.txt") -> CmakeFacts:
    return extract(name, path.read_bytes())


def test_sample_commands_lines_and_conditions() -> None:
    facts = facts_of(KERNEL / "CMakeLists.txt")
    assert facts.problems == ()
    rows = [(c.name, c.start_line, c.end_line, c.conditions) for c in facts.commands]
    assert rows == [
        ("cmake_minimum_required", 1, 1, ()),
        ("project", 2, 2, ()),
        ("include", 4, 4, ()),
        ("fetchcontent_declare", 7, 11, ()),
        ("fetchcontent_populate", 12, 12, ()),
        ("option", 14, 14, ()),
        ("set", 16, 16, ()),
        ("set", 18, 23, ()),
        ("file", 25, 25, ()),
        ("list", 26, 26, ()),
        ("set", 28, 31, ()),
        ("python_add_library", 33, 33, ()),
        ("target_compile_options", 34, 34, ()),
        ("target_include_directories", 35, 35, ()),
        ("target_link_libraries", 36, 36, ()),
        ("install", 37, 37, ()),
        ("if", 39, 39, ()),
        ("set", 40, 43, ("ENABLE_FA3",)),
        ("python_add_library", 44, 44, ("ENABLE_FA3",)),
        ("target_include_directories", 45, 45, ("ENABLE_FA3",)),
        ("install", 46, 46, ("ENABLE_FA3",)),
        ("endif", 47, 47, ()),
        ("include", 49, 49, ()),
    ]
    sources = facts.commands[7]
    assert sources.args == (
        CMakeArg("SOURCES", False, 18),
        CMakeArg("csrc/common_extension.cc", True, 19),
        CMakeArg("csrc/elementwise/activation.cu", True, 20),
        CMakeArg("csrc/elementwise/norm.cu", True, 21),
        CMakeArg("csrc/gemm/fp8_gemm.cu", True, 22),
    )
    option = facts.commands[5]
    assert [(a.value, a.quoted) for a in option.args] == [
        ("ENABLE_FA3", False), ("Build the FA3-like flash_ops extension", True), ("OFF", False)]
    genex = facts.commands[12]
    assert [a.value for a in genex.args] == [
        "common_ops", "PRIVATE", "$<$<COMPILE_LANGUAGE:CUDA>:${MINI_CUDA_FLAGS}>"]


SNIPPET = b"""\
if(A AND (B OR C))
  set(X 1)
  if(NOT D)
    set(Y 2) # trailing comment
  endif()
elseif(E)
  set(Z [=[bracket ; text]=])
else()
  Foo_Bar("multi
line" plain)
endif()
"""


def test_if_elseif_else_conditions() -> None:
    facts = extract("CMakeLists.txt", SNIPPET)
    assert facts.problems == ()
    assert [(c.name, c.start_line, c.end_line, c.conditions) for c in facts.commands] == [
        ("if", 1, 1, ()),
        ("set", 2, 2, ("A AND (B OR C)",)),
        ("if", 3, 3, ("A AND (B OR C)",)),
        ("set", 4, 4, ("A AND (B OR C)", "NOT D")),
        ("endif", 5, 5, ("A AND (B OR C)",)),
        ("elseif", 6, 6, ()),
        ("set", 7, 7, ("NOT (A AND (B OR C))", "E")),
        ("else", 8, 8, ()),
        ("foo_bar", 9, 10, ("NOT (A AND (B OR C))", "NOT (E)")),
        ("endif", 11, 11, ()),
    ]
    assert facts.commands[6].args[1] == CMakeArg("bracket ; text", True, 7)
    assert facts.commands[8].args == (CMakeArg("multi\nline", True, 9),
                                      CMakeArg("plain", False, 10))


def test_malformed_sample_recovers_commands() -> None:
    facts = facts_of(EDGE / "CMakeLists.txt")
    names = [(c.name, c.start_line) for c in facts.commands]
    assert names == [
        ("cmake_minimum_required", 1), ("project", 2), ("set", 4),
        ("frobnicate_the_build", 11),  # unknown command: kept as written
        ("add_library", 13), ("target_compile_options", 14), ("message", 15),
        ("include", 17), ("include", 18),
    ]
    # a generator expression with a space in it is two arguments, as CMake splits it
    assert [a.value for a in facts.commands[5].args] == [
        "edge_ops", "PRIVATE", "$<$<COMPILE_LANGUAGE:CUDA>:-O3", "--use_fast_math>"]
    # the stray ')' after message(...) on line 15
    assert {(p.kind, p.line) for p in facts.problems} >= {("syntax-error", 15)}


def test_unclosed_command_recovers_at_next_command_line() -> None:
    facts = facts_of(EDGE / "cmake/broken.cmake", "cmake/broken.cmake")
    assert [(c.name, c.start_line, c.end_line, [a.value for a in c.args])
            for c in facts.commands] == [
        ("set", 2, 2, ["BROKEN_LIST", "src/a.cu"]),
        ("add_executable", 3, 3, ["edge_tool", "src/tool.cc"]),
        ("target_link_libraries", 4, 4, ["edge_tool", "PRIVATE", "edge_ops"]),
    ]
    assert any("missing ')'" in p.message and p.line == 2 for p in facts.problems)


def test_unbalanced_if_is_reported() -> None:
    facts = extract("x.cmake", b"if(A)\nset(B c)\n")
    assert [(c.name, c.conditions) for c in facts.commands] == [("if", ()), ("set", ("A",))]
    assert any("without endif" in p.message for p in facts.problems)
    facts = extract("x.cmake", b"endif()\nset(B c)\n")
    assert [(c.name, c.conditions) for c in facts.commands] == [("endif", ()), ("set", ())]
    assert any("without if" in p.message for p in facts.problems)


@pytest.mark.parametrize("data", [
    b"", b"(((", b")))", b"set(", b'set(A "unterminated', b"set(A [[never closed",
    b"#[[ unterminated comment", b"\x00\x01", b"\xff\xfe set(A b)", b"if(\nelse(\nendif(",
    b"$<$<CONFIG:Debug>:x>", b"foo(bar)baz(qux", b"]]==[[", b"set(A\\", b"\"\"\"",
])
def test_malformed_input_never_raises(data: bytes) -> None:
    assert isinstance(extract("CMakeLists.txt", data), CmakeFacts)


def test_invalid_utf8_is_reported_and_parsed() -> None:
    facts = extract("CMakeLists.txt", b"set(A \xff.cu)\n")
    assert [p.kind for p in facts.problems] == ["invalid-utf8"]
    assert [a.value for a in facts.commands[0].args] == ["A", "\ufffd.cu"]


def test_json_round_trip() -> None:
    for path in (KERNEL / "CMakeLists.txt", KERNEL / "cmake/flashmla.cmake",
                 EDGE / "CMakeLists.txt", EDGE / "cmake/broken.cmake"):
        facts = facts_of(path)
        assert from_jsonable(CmakeFacts, to_jsonable(facts)) == facts
