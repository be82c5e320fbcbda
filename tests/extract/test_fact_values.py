"""The values extraction produces are slotted (no ``__dict__`` each: millions live through a
scan) and survive the facts cache's pickling unchanged, in all three languages."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path
from typing import Any

from analyzer.extract import cmake, cuda, python
from analyzer.extract.fact import Fact

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
            "OpRegistration"} <= kinds
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
