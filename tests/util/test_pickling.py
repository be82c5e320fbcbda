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


def test_equal_line_tuples_and_conditions_of_one_dump_load_as_one_object() -> None:
    from analyzer.extract.python_branches import Cond
    from analyzer.extract.python_facts import AttrAssign

    lines = tuple([400, 401])  # two equal tuples, made apart
    uses = (MemberUse("forward", "A", lines), MemberUse("backward", "A", tuple([400, 401])))
    assert uses[0].lines is not uses[1].lines
    flag = Cond("name", "self.use_nsa")
    sets = (AttrAssign("A", "self.x", "x", Cond("not", children=(flag,)), 500),
            AttrAssign("B", "self.y", "y", Cond("not", children=(Cond("name", "self.use_nsa"),)),
                       501))
    first, second = pickling.loads(pickling.dumps(uses))
    assert first.lines == (400, 401) and first.lines is second.lines
    a, b = pickling.loads(pickling.dumps(sets))
    assert a.cond == b.cond and a.cond is b.cond


def test_values_equal_only_across_types_stay_apart() -> None:
    """``True == 1``: a tuple or fact holding a bool is never merged with one holding an int."""
    from analyzer.extract.python_literals import LiteralEntry

    bools = (MemberUse("x", "A", (True,)), MemberUse("y", "A", (1,)))  # (types aside)
    first, second = pickling.loads(pickling.dumps(bools))
    assert type(first.lines[0]) is bool and type(second.lines[0]) is int
    entries = (LiteralEntry("k", None, 1, 1, True), LiteralEntry("k", None, 1, 1, 1))  # type: ignore[arg-type]
    one, other = pickling.loads(pickling.dumps(entries))
    assert type(one.alone) is bool and type(other.alone) is int
