"""The values extraction produces are slotted (no ``__dict__`` each: millions live through a
scan) and survive the facts cache's pickling unchanged, in all three languages."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path
from typing import Any

from analyzer.extract import cmake, cuda, python
from analyzer.extract.fact import Fact, Packed

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "mini_sglang"


def _values(obj: Any) -> list[Any]:
    """Every dataclass value inside ``obj`` (fields, lists, tuples, dicts), ``obj`` too."""
    out: list[Any] = []
    stack = [obj]
    while stack:
        x = stack.pop()
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            out.append(x)
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
        elif isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
        elif isinstance(x, Packed):
            stack.extend(x.unpack())
        elif isinstance(x, dict):
            stack.extend(x.values())
    return out


def _facts() -> list[Any]:
    out: list[Any] = []
    for path in sorted(SAMPLE.rglob("*")):
        rel = path.relative_to(SAMPLE).as_posix()
        if path.suffix == ".py":
            out.append(python.extract(rel, path.read_bytes()))
        elif path.suffix in (".cu", ".cc", ".cpp", ".h", ".cuh"):
            out.append(cuda.extract(rel, path.read_bytes()))
        elif path.name == "CMakeLists.txt" or path.suffix == ".cmake":
            out.append(cmake.extract(rel, path.read_bytes()))
    return out


def test_facts_survive_pickling_unchanged() -> None:
    facts = _facts()
    assert len(facts) > 10
    for f in facts:
        assert pickle.loads(pickle.dumps(f, protocol=pickle.HIGHEST_PROTOCOL)) == f


def test_fact_values_have_no_instance_dict() -> None:
    values = [v for f in _facts() for v in _values(f)]
    kinds = {type(v).__name__ for v in values}
    # the sample has imports, references, definitions, CMake commands and op registrations
    assert {"ImportFact", "Reference", "Definition", "CMakeCommand",
            "OpRegistration", "Branch", "Cond"} <= kinds
    for v in values:
        if isinstance(v, Fact):
            assert not hasattr(v, "__dict__"), type(v).__name__
    assert all(isinstance(v, Fact) for v in values
               if type(v).__name__ in ("ImportFact", "Reference", "MemberUse", "Cond"))


def test_equal_strings_of_a_file_load_as_one_object() -> None:
    from analyzer.extract.python_facts import Reference

    # two reads of one name, spelled by two separate string objects, as extraction makes them
    a, b = "".join(["tor", "ch.ops"]), "".join(["torch", ".ops"])
    assert a == b and a is not b
    refs = [Reference(a, "f", 3, (), ()), Reference(b, "g", 9, (), ())]
    loaded = pickle.loads(pickle.dumps(refs, protocol=pickle.HIGHEST_PROTOCOL))
    assert loaded == refs
    assert loaded[0].chain is loaded[1].chain


GUARDED = b"""\
import torch

if torch.version.hip:
    backend = "aiter"
else:
    backend = "fa3"
x = "a" if backend else "b"
"""


def test_branches_are_held_packed_until_read() -> None:
    facts = python.extract("pkg/m.py", GUARDED)
    assert isinstance(facts.branches, Packed)
    # the if statement (lines 3-6) and the conditional expression of line 7, in source order
    branches = facts.branches.unpack()
    assert [(b.kind, b.start_line, b.end_line) for b in branches] == [
        ("if", 3, 6), ("ifexp", 7, 7)]
    # each read unpacks anew: equal values, new objects
    again = facts.branches.unpack()
    assert again == branches and again[0] is not branches[0]
    assert len(facts.branches) == 2 and facts.branches[1].kind == "ifexp"
    assert [b.start_line for b in facts.branches] == [3, 7]
    # the facts cache's pickling keeps the pack as bytes, equal to the original
    loaded = pickle.loads(pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL))
    assert isinstance(loaded.branches, Packed) and loaded.branches == facts.branches
    assert loaded.branches.data == facts.branches.data
    assert hash(loaded) == hash(facts)


def test_a_file_without_branches_packs_nothing() -> None:
    facts = python.extract("pkg/m.py", b"import os\n")
    assert not facts.branches and facts.branches.data == b""
    assert facts.branches.unpack() == () and list(facts.branches) == []
    assert Packed() == facts.branches and Packed([1]) != facts.branches


def test_facts_load_through_their_class_constructor_not_init(monkeypatch) -> None:
    """A loaded fact is made by its class's ``_rebuild`` (each slot set directly), never by
    the frozen ``__init__``, and equals the fact that was pickled, field by field; a fact
    class that is not a slotted dataclass of its ``__init__`` fields is rebuilt by calling
    it."""
    from analyzer.util import pickling

    values = [v for f in _facts() for v in _values(f) if isinstance(v, Fact)]
    by_class = {type(v): v for v in values}
    assert len(by_class) >= 10
    data = {cls: pickling.dumps(v) for cls, v in by_class.items()}

    def no_init(self: object, *args: object, **kwargs: object) -> None:
        raise AssertionError(f"{type(self).__name__}.__init__ called while loading")

    for cls in by_class:
        monkeypatch.setattr(cls, "__init__", no_init)
    for cls, v in by_class.items():
        loaded = pickling.loads(data[cls])
        assert type(loaded) is cls
        assert [getattr(loaded, f.name) for f in dataclasses.fields(cls)] == \
            [getattr(v, f.name) for f in dataclasses.fields(cls)]
    monkeypatch.undo()

    @dataclasses.dataclass(frozen=True)
    class Plain(Fact):  # no slots: rebuilt by calling the class
        name: str

    assert Plain._rebuild is Plain
    assert Plain._rebuild("x") == Plain("x")

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked(Fact):  # its __post_init__ must run: rebuilt by calling the class
        name: str

        def __post_init__(self) -> None:
            assert self.name

    assert Checked._rebuild is Checked
