"""Displays of attribute chains (``analyzer.extract.python_literals.chain_displays``): which
lists, tuples and sets may lose an element naming a dropped enum member."""

from __future__ import annotations

from analyzer.extract.python import extract

SOURCE = b'''\
PRIORITY = [Backend.FA, Backend.MLA, *extra]
a, b = [Backend.FA, Backend.MLA]
pair = (Backend.FA, Backend.MLA)


def f(x):
    if x in (Backend.FA, Backend.MLA):
        return x == (Backend.FA, Backend.MLA)
    for y in (Backend.FA, Backend.MLA):
        pass
    return [Backend.FA, Backend.FA]
'''


def test_which_displays_count() -> None:
    found = {(d.start_line, tuple((e.chain, e.unique) for e in d.elements), d.others)
             for d in extract("m.py", SOURCE).chain_displays}
    fa, mla = ("Backend.FA", True), ("Backend.MLA", True)
    assert found == {
        (1, (fa, mla), 1),  # a priority list with a splat
        (3, (fa, mla), 0),  # a tuple assigned to one name
        (7, (fa, mla), 0),  # a membership test
        (9, (fa, mla), 0),  # a for loop
        # the same chain twice on one line: the codemod could not tell them apart
        (11, (("Backend.FA", False), ("Backend.FA", False)), 0),
    }
    # not: `a, b = [...]` (unpacking) and `x == (...)` (compares the whole tuple)
