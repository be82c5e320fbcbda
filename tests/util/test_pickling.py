"""Cache helpers: ``analyzer.util.pickling`` -- pickles whose integers and strings load as
one object per value across separately pickled files, and whose values are those pickled."""

from __future__ import annotations

import pickle

from analyzer.extract.python_facts import MemberUse, Reference
from analyzer.util import pickling


def test_values_round_trip() -> None:
    value = {"a": (1, -1, -6, 257, 2**70, -(2**70), True, False, None, 1.5, b"x"),
             "s": ["", "é", "torch"], 300: {"nested": (True, 256)}}
    assert pickling.loads(pickling.dumps(value)) == value
    got = pickling.loads(pickling.dumps((True, 1, 0)))
    assert got == (True, 1, 0) and type(got[0]) is bool and type(got[1]) is int


def test_equal_integers_and_strings_of_two_pickles_are_one_object() -> None:
    name = "".join(["forward_", "native"])  # built at run time: not a constant of this file
    first = pickling.loads(pickling.dumps(MemberUse(name, "Attn", (1000, 1001))))
    second = pickling.loads(pickling.dumps(Reference(name, "Attn.run", 1000, (70000,))))
    assert isinstance(first, MemberUse) and isinstance(second, Reference)
    assert first.lines == (1000, 1001) and second.line == 1000 and second.also == (70000,)
    assert first.name is second.chain
    assert first.lines[0] is second.line
    # plain pickle loads each file's copies apart
    a = pickle.loads(pickle.dumps(MemberUse(name, "Attn", (1000,))))
    b = pickle.loads(pickle.dumps(Reference(name, "Attn.run", 1000)))
    assert a.lines[0] is not b.line


def test_a_plain_pickle_loads() -> None:
    assert pickling.loads(pickle.dumps(("x", 10**6))) == ("x", 10**6)


def test_a_value_shared_before_loading_is_the_one_loaded() -> None:
    made = pickling.shared("".join(["py:pkg.mod:", "Klass.method"]))  # a node id a scan makes
    assert pickling.loads(pickling.dumps(("py:pkg.mod:Klass.method",)))[0] is made
    assert pickling.shared(10**7 + 1) is pickling.loads(pickling.dumps(10**7 + 1))
