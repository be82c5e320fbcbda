"""Plan stage, soundness: ``simulate`` (``analyzer/plan/check/simulate.py``) applies one file's
deletions to a parsed copy and says which names became undefined (pyflakes, before and after), which
module-level names and class attributes the file no longer binds, and which deletions removed
each binding. Sources are small; line numbers are counted in them."""

from __future__ import annotations

import pytest

from analyzer.model import Deletion
from analyzer.plan.check import simulate
from analyzer.plan.check.simulate import FileSim
from analyzer.plan.check.view import lost_attrs, lost_names


def rng(start: int, end: int, kind: str = "delete_range", **kw) -> Deletion:
    return Deletion(kind, "m.py", "0" * 64, end - start + 1, "test", start, end, **kw)


def names_lost(sim: FileSim) -> set[str]:
    assert sim.before is not None and sim.after is not None
    return lost_names(sim.before, sim.after, sim)


def undefined_after(sim: FileSim) -> dict[str, int]:
    assert sim.after is not None
    return dict(sim.after.undefined)


def test_removed_import_that_a_function_reads() -> None:
    src = (b"import os\n"          # 1
           b"import sys\n"         # 2
           b"\n"                   # 3
           b"\n"                   # 4
           b"def f():\n"           # 5
           b"    return os.sep\n")  # 6
    gone = rng(1, 1)
    sim = simulate(src, [gone], "m.py")
    assert sim.parsed
    assert sim.before.undefined == {}  # unused `sys` is no undefined name
    assert undefined_after(sim) == {"os": 1}
    assert sim.after.undefined_lines == {"os": 6}
    assert sim.binders["os"] == [gone]
    assert names_lost(sim) == {"os"}
    assert sim.edits == (gone,)


def test_removed_unused_import_breaks_nothing() -> None:
    src = b"import os\nimport sys\n\n\ndef f():\n    return os.sep\n"
    sim = simulate(src, [rng(2, 2)], "m.py")
    assert undefined_after(sim) == {}
    assert names_lost(sim) == {"sys"}


def test_removed_names_of_one_import() -> None:
    src = b"from m2 import a, b as bb, c\nprint(a, bb)\n"
    gone = Deletion("remove_import_names", "m.py", "0" * 64, 0, "test", 1, 1,
                    names=("bb", "c"))
    sim = simulate(src, [gone], "m.py")
    assert undefined_after(sim) == {"bb": 1}  # a stays; c was never read
    assert names_lost(sim) == {"bb", "c"}
    assert set(sim.binders) == {"bb", "c"}


def test_removed_enum_member_is_a_lost_class_attribute() -> None:
    src = (b"import enum\n"                # 1
           b"\n"                           # 2
           b"\n"                           # 3
           b"class Backend(enum.Enum):\n"  # 4
           b"    CUDA = 1\n"               # 5
           b"    NPU = 2\n")               # 6
    sim = simulate(src, [rng(6, 6)], "m.py")
    assert lost_attrs(sim.before, sim.after) == {"Backend": {"NPU"}}
    assert names_lost(sim) == set()
    assert undefined_after(sim) == {}


def test_decorators_belong_to_the_definition() -> None:
    src = (b"def reg(f):\n"      # 1
           b"    return f\n"     # 2
           b"@reg\n"             # 3
           b"def dead():\n"      # 4
           b"    return 1\n"     # 5
           b"x = dead\n")        # 6
    sim = simulate(src, [rng(3, 5)], "m.py")
    assert undefined_after(sim) == {"dead": 1}
    assert sim.after.undefined_lines == {"dead": 6}
    # a range that covers the def but not its decorator removes nothing
    partial = simulate(src, [rng(4, 5)], "m.py")
    assert undefined_after(partial) == {} and names_lost(partial) == set()


@pytest.mark.parametrize(("kind", "lost"), [
    # a plain deletion of one of two bindings: on the path of the lost one, Meta is unbound
    pytest.param("delete_range", {"Meta"}, id="deletion-loses-the-binding"),
    # a folded branch never runs on the target: losing its binding is the point of the fold
    pytest.param("fold_branch", set(), id="fold-is-no-culprit"),
])
def test_name_bound_in_both_arms_of_an_if(kind: str, lost: set[str]) -> None:
    src = (b"if ok:\n"                   # 1
           b"    from ext import Meta\n"  # 2
           b"else:\n"                    # 3
           b"    class Meta:\n"          # 4
           b"        pass\n"             # 5
           b"x = Meta\n")                # 6
    sim = simulate(src, [rng(2, 2, kind)], "m.py")
    assert names_lost(sim) == lost
    assert undefined_after(sim) == {"ok": 1}  # `ok` was undefined before too: nothing new
    assert sim.before.undefined == {"ok": 1}


def test_an_ifexp_fold_removes_no_statement() -> None:
    src = b"import a\nimport b\nx = a.f if flag else b.g\n"
    sim = simulate(src, [rng(3, 3, "fold_branch", rewrite="ifexp")], "m.py")
    assert names_lost(sim) == set() and undefined_after(sim) == {"flag": 1}


def ifexp(line: int, value: bool, test: str) -> Deletion:
    # an arm on the conditional expression's own line: only the reason tells which stays
    return Deletion("fold_branch", "m.py", "0" * 64, 0,
                    f"... if {test} else ...: folds to {value}", line, line,
                    rewrite="ifexp", statement=(line, line), keep=(line, line))


@pytest.mark.parametrize(("value", "undefined"), [(False, {"b": 1}), (True, {"a": 1})])
def test_an_ifexp_on_one_line_keeps_the_arm_its_value_names(value, undefined) -> None:
    # `x = a if flag else b`: folding to False keeps `b`, so `a` is read no more and its
    # import may go; the import of `b` (the kept arm) is still needed
    src = b"import a\nimport b\nx = a if flag else b\n"
    edits = [ifexp(3, value, "flag"), rng(1, 1), rng(2, 2)]
    assert undefined_after(simulate(src, edits, "m.py")) == undefined  # `flag` goes too


def test_nested_ifexps_on_one_line_are_told_by_their_condition() -> None:
    # only `q` folds (to True): the outer expression stays, reading a, p and b, not c
    src = b"import a\nimport b\nimport c\nx = a if p else (b if q else c)\n"
    edits = [ifexp(4, True, "q"), rng(1, 1), rng(2, 2), rng(3, 3)]
    assert undefined_after(simulate(src, edits, "m.py")) == {"p": 1, "a": 1, "b": 1}


def test_a_file_that_does_not_parse() -> None:
    sim = simulate(b"def broken(:\n    pass\n", [rng(1, 2)], "m.py")
    assert not sim.parsed
    assert sim.after is None and sim.before is None


def test_a_function_losing_one_binding_of_a_name_it_reads() -> None:
    src = (b"def f(flag):\n"          # 1
           b"    if flag:\n"          # 2
           b"        import os\n"     # 3
           b"    else:\n"             # 4
           b"        os = None\n"     # 5
           b"    sep = os\n"          # 6
           b"    return sep, flag\n")  # 7
    sim = simulate(src, [rng(3, 3)], "m.py")
    from analyzer.plan.check.lint import lint_tree, parse, unbound_reads
    assert unbound_reads(sim.before, sim.after) == [("f", "os", 2, 1)]
    # the simulation keeps, of what `f` reads, only the names whose bindings the edit
    # reduced: `os` (`sep` keeps its binding, `flag` is a parameter)
    assert sim.after.reads == {"f": frozenset({"os"})}
    # ... which answers as the whole lint of the edited file does
    edited = parse(b"def f(flag):\n    if flag:\n        pass\n    else:\n        os = None\n"
                   b"    sep = os\n    return sep, flag\n", "m.py")
    whole = lint_tree(edited, "m.py")
    assert "flag" in whole.reads["f"]
    assert unbound_reads(sim.before, whole) == unbound_reads(sim.before, sim.after)
    # the lints kept of the original hold no reads (only an edited file's are asked)
    assert sim.before.reads == {}
    # what the edit left as it was is the original's object, kept (and cached) once
    assert sim.after.module_names is sim.before.module_names
    assert sim.after.class_attrs is sim.before.class_attrs


CHAIN = (b"from m import a, b, c\n"  # 1
         b"\n"                      # 2
         b"\n"                      # 3
         b"def f():\n"              # 4
         b"    if a():\n"           # 5
         b"        x = 1\n"         # 6
         b"    elif b():\n"         # 7
         b"        x = 2\n"         # 8
         b"    elif c():\n"         # 9
         b"        x = 3\n"         # 10
         b"    else:\n"             # 11
         b"        x = 4\n"         # 12
         b"    return x\n")         # 13


def fold(start: int, end: int, rewrite: str, statement: tuple[int, int] = (5, 12),
         keep: tuple[int, int] | None = None) -> Deletion:
    return rng(start, end, "fold_branch", rewrite=rewrite, statement=statement, keep=keep)


def unimport(*names: str) -> Deletion:
    return Deletion("remove_import_names", "m.py", "0" * 64, 0, "test", 1, 1, names=names)


@pytest.mark.parametrize(("folded", "removed", "undefined"), [
    # the two elif clauses go: their conditions read b and c no more; `if a()` stays
    pytest.param(fold(7, 10, "delete_clause"), ("b", "c"), {}, id="delete-clause"),
    pytest.param(fold(7, 10, "delete_clause"), ("a", "b", "c"), {"a": 1},
                 id="delete-clause-keeps-the-if"),
    # the if and the first elif go, `elif c()` becomes the if: c is still read
    pytest.param(fold(5, 8, "promote_elif"), ("a", "b"), {}, id="promote-elif"),
    pytest.param(fold(5, 8, "promote_elif"), ("a", "b", "c"), {"c": 1},
                 id="promote-elif-keeps-the-live-elif"),
    # only the if body stays (dedented), or only the else body: no condition is read
    pytest.param(fold(7, 12, "unwrap_if", keep=(6, 6)), ("a", "b", "c"), {}, id="unwrap-if"),
    pytest.param(fold(5, 11, "unwrap_else", keep=(12, 12)), ("a", "b", "c"), {},
                 id="unwrap-else"),
    # a fold whose statement is not this one's lines changes nothing of the statement
    pytest.param(fold(7, 10, "delete_clause", statement=(5, 13)), ("b", "c"),
                 {"b": 1, "c": 1}, id="other-statement"),
    # the codemod leaves an ifexp's condition in place for the other arm: still read
    pytest.param(fold(7, 10, "ifexp", statement=(5, 12)), ("b",), {"b": 1}, id="no-clause"),
])
def test_folded_clauses_take_their_conditions(folded: Deletion, removed: tuple[str, ...],
                                              undefined: dict[str, int]) -> None:
    sim = simulate(CHAIN, [folded, unimport(*removed)], "m.py")
    assert undefined_after(sim) == undefined
    # what the fold left still binds x on every path: no new undefined x
    assert "x" not in undefined_after(sim)


def test_a_folded_condition_binding_a_name_is_blamed_for_it() -> None:
    src = (b"import re\n"                           # 1
           b"\n"                                    # 2
           b"\n"                                    # 3
           b"def f(s):\n"                           # 4
           b"    if s:\n"                           # 5
           b"        pass\n"                        # 6
           b"    elif (m := re.match('x', s)):\n"  # 7
           b"        return m\n"                    # 8
           b"    return None\n")                    # 9
    folded = fold(7, 8, "delete_clause", statement=(5, 8))
    sim = simulate(src, [folded], "m.py")
    assert sim.binders["m"] == [folded]
    assert undefined_after(sim) == {}
