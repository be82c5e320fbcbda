"""Resolve stage, CMake: ``if()`` conditions decided by forced option values.

Expected values written by hand from CMake's ``if()`` rules (constants, precedence of
``NOT``/``AND``/``OR``, parentheses) and three-valued logic: only the forced options are known.
"""

from __future__ import annotations

import pytest

from analyzer.resolve.cmake_cond import (
    condition_options,
    evaluate_condition,
    forced_values,
    is_false,
)

FORCED = forced_values({"OPT": False, "ON_OPT": True})


def test_forced_values_are_cmake_booleans() -> None:
    assert forced_values({"A": True, "B": False}) == {"A": "ON", "B": "OFF"}


def test_forced_string_variables() -> None:
    # cmake_options = { VLLM_TARGET_DEVICE = "cuda" }: the variable expands to the string
    forced = forced_values({"VLLM_TARGET_DEVICE": "cuda", "VLLM_GPU_LANG": "CUDA"})
    assert forced == {"VLLM_TARGET_DEVICE": "cuda", "VLLM_GPU_LANG": "CUDA"}
    assert evaluate_condition('VLLM_TARGET_DEVICE STREQUAL "cpu"', forced) is False
    assert evaluate_condition('${VLLM_TARGET_DEVICE} STREQUAL "cuda"', forced) is True
    assert evaluate_condition('NOT VLLM_TARGET_DEVICE STREQUAL "cuda" AND NOT '
                              'VLLM_TARGET_DEVICE STREQUAL "rocm"', forced) is False
    assert evaluate_condition('VLLM_GPU_LANG STREQUAL "HIP" OR X', forced) is None


@pytest.mark.parametrize(("text", "value"), [
    ("OPT", False),
    ("ON_OPT", True),
    ("NOT OPT", True),
    ("NOT (OPT)", True),
    ("NOT NOT OPT", False),
    ("${OPT}", False),
    ('"${OPT}"', False),
    ("${ON_OPT}", True),
    ("DEFINED OPT", True),
    ("OPT AND X", False),  # false whatever X is
    ("X AND OPT", False),
    ("ON_OPT OR X", True),  # true whatever X is
    ("ON_OPT AND NOT OPT", True),
    ("X OR OPT AND Y", None),  # AND binds first: X OR (OPT AND Y) = X OR FALSE
    ("(X OR OPT) AND Y", None),
    ("(X OR ON_OPT) AND OPT", False),
    ("NOT (X AND OPT)", True),
    ('OPT STREQUAL "OFF"', True),
    ('ON_OPT STREQUAL "OFF"', False),
    ('"${OPT}" STREQUAL "OFF"', True),
    ("1 EQUAL 1", True),
    ("2 LESS 1", False),
    ("1", True),
    ("0", False),
    ("ON", True),
    ("off", False),
    ("2.5", True),
    ('""', False),
    ("lib-NOTFOUND", False),
])
def test_decided_conditions(text: str, value: bool) -> None:
    assert evaluate_condition(text, FORCED) is value


@pytest.mark.parametrize("text", [
    "X",  # any other variable
    "NOT X",
    "${X}",
    '"${X}"',
    "OPT OR X",  # FALSE OR unknown
    "DEFINED X",
    "DEFINED ENV{OPT}",
    "EXISTS ${OPT}",
    "TARGET foo_ops",
    '"${CUDA_VERSION}" VERSION_GREATER_EQUAL "12.4"',
    "OPT STREQUAL OFF",  # an unquoted OFF may name a variable
    "X STREQUAL OFF",
    "OPT MATCHES ON",
    '"some text"',  # a quoted string CMP0054 may dereference
    # not parsable: unknown, never a guess
    "NOT",
    "(OPT",
    "OPT)",
    "OPT AND",
    "",
])
def test_undecided_conditions(text: str) -> None:
    assert evaluate_condition(text, FORCED) is None


def test_nothing_is_decided_without_forced_options() -> None:
    assert evaluate_condition("0", {}) is None
    assert evaluate_condition("OPT", {}) is None
    assert is_false(("0",), {}) is None


def test_is_false_names_the_first_false_condition_of_a_conjunction() -> None:
    assert is_false(("X", "NOT (ON_OPT)", "OPT"), FORCED) == "NOT (ON_OPT)"
    assert is_false(("X", "NOT (OPT)"), FORCED) is None
    assert is_false((), FORCED) is None


def test_condition_options_lists_the_forced_names_used() -> None:
    assert condition_options("OPT AND X OR ${ON_OPT}", FORCED) == ("OPT", "ON_OPT")
    assert condition_options('NOT ("${OPT}" STREQUAL "x") AND OPT', FORCED) == ("OPT",)
    assert condition_options("X AND Y", FORCED) == ()
