"""``TypeTestAppend`` facts: ``L.append(C)`` statements of a function whose list ``L`` only
type tests read, found in every function whose body holds one (nested ones too), in the
order of a depth-first walk that takes the last child first: a later function before an
earlier one, an enclosing function before the ones inside it (the order the walk over every
node gave; only functions holding an ``append`` are read now)."""

from __future__ import annotations

from analyzer.extract.python import extract

SOURCE = b'''\
from pkg import A, B, C, D, E


def first(x):
    kinds = []
    kinds.append(A)
    def inner(y):
        found = []
        found.append(B)
        return isinstance(y, tuple(found))
    return isinstance(x, tuple(kinds)) and inner(x)


def leaked(x):
    kinds = []
    kinds.append(C)
    print(kinds)  # read otherwise: no type-test list
    return isinstance(x, tuple(kinds))


def no_call(x, note="append"):
    # "append" in a string and a comment only
    return x


def last(x):
    tests = []
    tests.append(D)
    tests.append(E)
    return isinstance(x, tuple(tests))
'''


def test_every_function_with_an_append_in_walk_order() -> None:
    facts = extract("pkg/kinds.py", SOURCE)
    got = [(t.scope, t.line, t.end_line, t.list_name, t.chain) for t in facts.type_test_appends]
    # within a function, its statements last first too; `inner`'s scope is its top-level
    # function; `leaked` reads its list otherwise, `no_call` has no append statement
    assert got == [
        ("last", 29, 29, "tests", "E"),
        ("last", 28, 28, "tests", "D"),
        ("first", 6, 6, "kinds", "A"),
        ("first", 9, 9, "found", "B"),
    ]


def test_no_append_in_the_source_means_no_fact() -> None:
    source = SOURCE.replace(b".append(", b".extend(")
    assert extract("pkg/kinds.py", source).type_test_appends == ()
