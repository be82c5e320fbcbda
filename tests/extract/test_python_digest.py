"""Extract stage, Python: the analysis digest (``PythonFacts.analysis_digest``), the early
cut-off's key -- equal exactly when the facts (but the line count) and the code without its
comments are. Each case says by hand what changed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from analyzer.extract.python import extract

SOURCE = b'''\
# -*- coding: utf-8 -*-
"""A module."""
import os  # the platform

FAST = os.environ.get("FAST")  # a probe


def f(x):
    # comment inside a body
    if FAST:
        return x
    return 2 * x
'''


def _digest(data: bytes) -> str:
    return extract("pkg/mod.py", data).analysis_digest


def test_a_file_parsed_cleanly_has_one() -> None:
    assert len(_digest(SOURCE)) == 64


def test_a_comment_appended_keeps_it_and_the_line_count_moves() -> None:
    edited = SOURCE + b"\n# bench edit\n"
    assert _digest(edited) == _digest(SOURCE)
    assert extract("pkg/mod.py", edited).line_count == \
        extract("pkg/mod.py", SOURCE).line_count + 2


@pytest.mark.parametrize("edited", [
    SOURCE.replace(b"# the platform", b"# THE PLATFORM"),  # the same length
    SOURCE.replace(b"# comment inside a body", b"# COMMENT INSIDE A BODY"),
    SOURCE + b"\n\n\n",  # blank lines at the end
])
def test_a_comment_that_moves_nothing_keeps_it(edited: bytes) -> None:
    assert _digest(edited) == _digest(SOURCE)


def test_a_longer_comment_before_a_branch_changes_it() -> None:
    # the `if FAST:` branch's facts hold its byte offsets: a comment one byte longer in the
    # body before it moves them
    edited = SOURCE.replace(b"# comment inside a body", b"# comment inside a body!")
    base, other = extract("pkg/mod.py", SOURCE), extract("pkg/mod.py", edited)
    assert tuple(base.branches) != tuple(other.branches)
    assert _digest(edited) != _digest(SOURCE)


@pytest.mark.parametrize("edited", [
    SOURCE.replace(b"return 2 * x", b"return 3 * x"),  # code no fact holds
    SOURCE.replace(b'"""A module."""', b'"""A module!"""'),  # a docstring is code
    SOURCE + b"\nEDITED = 1\n",  # a new definition
    SOURCE.replace(b"utf-8", b"latin-1"),  # the encoding declaration (line 1)
    SOURCE.replace(b"    # comment inside a body\n", b""),  # a line less: lines move
])
def test_code_and_what_moves_lines_change_it(edited: bytes) -> None:
    assert _digest(edited) != _digest(SOURCE)


def test_a_file_with_a_syntax_error_has_none() -> None:
    assert _digest(SOURCE + b"\ndef broken(:\n") == ""
    assert _digest(b"\xff\xfe not utf-8\n") == ""


def test_the_same_in_another_process() -> None:
    # (the facts hold a set, whose order varies with the process's string hashing)
    code = ("import sys; from analyzer.extract.python import extract; "
            "sys.stdout.write(extract('pkg/mod.py', sys.stdin.buffer.read()).analysis_digest)")
    got = {subprocess.run([sys.executable, "-c", code], input=SOURCE, capture_output=True,
                          check=True, env={"PYTHONHASHSEED": seed, "PATH": ""},
                          cwd=_project_root()).stdout.decode()
           for seed in ("1", "2", "3")}
    assert got == {_digest(SOURCE)}


def _project_root() -> str:
    from pathlib import Path
    return str(Path(__file__).resolve().parents[2])
