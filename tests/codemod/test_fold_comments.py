"""Codemod stage: scan and codemod agree on where a statement ends.

Every fold rewrite runs end to end (tree-sitter extraction, guard folding, LibCST edit) on
blocks that end in comment lines, blank lines, nested blocks, and comment lines at lower
indentation; outputs are written by hand. Tree-sitter puts the comment lines closing a block
inside it, LibCST does not: before the fix, apply refused such statements ("no single if/try
statement found").
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from analyzer.codemod.python_edits import EditError, PyEdit, edit_python
from analyzer.decide.guards import DeadRegion, GuardContext, fold_module
from analyzer.extract.python import extract
from analyzer.resolve.python import ModuleIndex, PyModule

CTX = GuardContext(constants={"m._is_npu": False, "m._is_hip": False, "m._is_cuda": True},
                   dead_imports=frozenset({"dead_ext"}))


def d(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def regions_of(source: str) -> list[DeadRegion]:
    facts = extract("m.py", source.encode())
    index = ModuleIndex([PyModule("m", "m.py", False, facts)])
    return fold_module("m", facts, index, CTX)


def edits_of(regions: list[DeadRegion]) -> list[PyEdit]:
    return [PyEdit("fold_branch", r.start_line, r.end_line, rewrite=r.rewrite,
                   statement=r.statement, keep=r.keep, reason=r.reason) for r in regions]


# name -> (source, expected output, the regions the scan finds: (start, end, rewrite,
# statement, keep), the regions an older scan wrote, whose ends took in trailing comments)
CASES: dict[str, tuple[str, str, list[tuple], list[tuple]]] = {
    "delete": (d("""
        _is_npu = False

        if _is_npu:
            import npu_ops
            if npu_ops.ready:
                npu_ops.init()
                # deep tail
            # npu tail
        # after the if

        x = 1


        def f(x):
            if _is_npu:
                return x
                # npu tail
        """), d("""
        _is_npu = False

        # after the if

        x = 1


        def f(x):
            pass
        """),
        [(3, 6, "delete", (3, 6), None), (15, 16, "delete", (15, 16), None)],
        [(3, 8, "delete", (3, 8), None), (15, 17, "delete", (15, 17), None)]),
    "delete_clause": (d("""
        _is_npu = False
        _is_cuda = True


        def g(flag):
            if flag:
                a = 1
            elif _is_npu:
                a = 2
                for i in range(3):
                    a += i
                    # in loop

                # elif tail
            else:
                a = 3
                # else tail
            return a


        def g2(flag):
            if flag:
                a = 1
            elif _is_cuda:
                a = 2
            else:
                a = 3
                # else tail
            # after, lower
            return a
        """), d("""
        _is_npu = False
        _is_cuda = True


        def g(flag):
            if flag:
                a = 1
            else:
                a = 3
                # else tail
            return a


        def g2(flag):
            if flag:
                a = 1
            elif _is_cuda:
                a = 2
            # after, lower
            return a
        """),
        [(8, 11, "delete_clause", (6, 16), None), (26, 27, "delete_clause", (22, 27), None)],
        [(8, 14, "delete_clause", (6, 17), None), (26, 28, "delete_clause", (22, 28), None)]),
    # what was seen on SGLang: an `elif _is_hip:` block ending in four comment lines
    "promote_elif": (d("""
        _is_npu = False
        _is_hip = False


        def h(flag):
            if _is_npu:
                a = npu()
                # npu tail
            elif _is_hip:
                a = hip()
                # hip 1
                # hip 2
                # hip 3
                # hip 4
            elif flag:
                a = 2
                # flag tail
            else:
                a = 3
                # else tail
            return a
        """), d("""
        _is_npu = False
        _is_hip = False


        def h(flag):
            if flag:
                a = 2
                # flag tail
            else:
                a = 3
                # else tail
            return a
        """),
        [(6, 14, "promote_elif", (6, 19), None)],
        [(6, 14, "promote_elif", (6, 20), None)]),
    # ... and an `if _is_npu: ... else: ...` whose else block ends in a comment line
    "unwrap_else": (d("""
        _is_npu = False


        def k(x):
            if _is_npu:
                y = npu(x)
                # npu tail
            else:
                y = cuda(x)
                if y is None:
                    y = x
                    # inner tail
                # else tail
            return y
        """), d("""
        _is_npu = False


        def k(x):
            y = cuda(x)
            if y is None:
                y = x
                # inner tail
            # else tail
            return y
        """),
        [(5, 8, "unwrap_else", (5, 11), (9, 11))],
        [(5, 8, "unwrap_else", (5, 13), (9, 13))]),
    # the kept body's closing comment stays; the blank line and the comment introducing the
    # dead `else:` go with it
    "unwrap_if": (d("""
        _is_cuda = True


        def u(x):
            if _is_cuda:
                y = cuda(x)
                # cuda tail

            # before else, lower
            else:
                y = x
                # else tail
            return y
        """), d("""
        _is_cuda = True


        def u(x):
            y = cuda(x)
            # cuda tail
            return y
        """),
        [(10, 11, "unwrap_if", (5, 11), (6, 6))],
        [(10, 12, "unwrap_if", (5, 12), (6, 7))]),
    "try_unwrap": (d("""
        try:
            import dead_ext
            # optional fast path
        except ImportError:
            dead_ext = None
            # fallback tail
        # after try

        try:
            from dead_ext import op
        except ImportError:
            op = None
            if op is None:
                op = print
                # inner tail
            # except tail
        else:
            op = op.fast
            # else tail
        """), d("""
        dead_ext = None
        # fallback tail
        # after try

        op = None
        if op is None:
            op = print
            # inner tail
        # except tail
        """),
        [(1, 4, "try_unwrap", (1, 5), (5, 5)), (9, 11, "try_unwrap", (9, 18), (12, 14)),
         (15, 18, "try_unwrap", (9, 18), (12, 14))],
        [(1, 4, "try_unwrap", (1, 6), (5, 6)), (9, 11, "try_unwrap", (9, 19), (12, 16)),
         (17, 19, "try_unwrap", (9, 19), (12, 16))]),
    # the comment on the kept arm's line stays, the dead arm's goes
    "ifexp": (d("""
        _is_npu = False
        _is_cuda = True
        x = (
            cuda_impl  # cuda arm
            if _is_cuda
            else other_impl  # other arm
        )
        y = (
            npu_impl  # npu arm
            if _is_npu
            else cuda_impl  # cuda arm
        )
        """), d("""
        _is_npu = False
        _is_cuda = True
        x = (
            cuda_impl  # cuda arm
        )
        y = (
            cuda_impl  # cuda arm
        )
        """),
        [(6, 6, "ifexp", (4, 6), (4, 4)), (9, 9, "ifexp", (9, 11), (11, 11))],
        [(6, 6, "ifexp", (4, 6), (4, 4)), (9, 9, "ifexp", (9, 11), (11, 11))]),
}


def test_every_fold_rewrite_is_covered() -> None:
    seen = {r[2] for _, _, found, _ in CASES.values() for r in found}
    assert seen == {"delete", "delete_clause", "promote_elif", "unwrap_if", "unwrap_else",
                    "try_unwrap", "ifexp"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fold_end_to_end(name: str) -> None:
    source, expected, found, _ = CASES[name]
    regions = regions_of(source)
    assert [(r.start_line, r.end_line, r.rewrite, r.statement, r.keep)
            for r in regions] == found
    out = edit_python(source, edits_of(regions))
    assert out == expected
    ast.parse(out)


@pytest.mark.parametrize("name", sorted(CASES))
def test_ranges_ending_in_comment_lines_are_accepted(name: str) -> None:
    """Manifests written before the extractor fix: statement, clause and kept-body ends
    include trailing comment lines; they differ from LibCST's by comments only."""
    source, expected, _, older = CASES[name]
    reasons = [r.reason for r in regions_of(source)]
    edits = [PyEdit("fold_branch", s, e, rewrite=rw, statement=st, keep=k, reason=why)
             for (s, e, rw, st, k), why in zip(older, reasons, strict=True)]
    assert edit_python(source, edits) == expected


def test_clause_ends_are_the_last_line_of_code() -> None:
    source = CASES["promote_elif"][0]
    (branch,) = extract("m.py", source.encode()).branches
    assert (branch.start_line, branch.end_line) == (6, 19)
    assert [(c.kind, c.start_line, c.end_line, c.body_start_line) for c in branch.clauses] == [
        ("if", 6, 7, 7), ("elif", 9, 10, 10), ("elif", 15, 16, 16), ("else", 18, 19, 19)]
    first, second = [b for b in extract("m.py", CASES["try_unwrap"][0].encode()).branches
                     if b.kind == "try_import"]
    assert [(c.kind, c.start_line, c.end_line) for c in first.clauses] == [
        ("try", 1, 2), ("except", 4, 5)]
    assert (second.start_line, second.end_line) == (9, 18)
    assert [(c.kind, c.start_line, c.end_line) for c in second.clauses] == [
        ("try", 9, 10), ("except", 11, 14), ("else", 17, 18)]


def test_a_statement_end_that_differs_by_code_is_refused() -> None:
    source = "if a:\n    x = 1\n    # tail\ny = 2\n"
    assert edit_python(source, [PyEdit("fold_branch", 1, 3, rewrite="delete",
                                       statement=(1, 3))]) == "y = 2\n"
    with pytest.raises(EditError, match="no single if/try statement"):
        edit_python(source, [PyEdit("fold_branch", 1, 4, rewrite="delete", statement=(1, 4))])


def test_a_hash_inside_a_string_is_code() -> None:
    source = 'if a:\n    x = 1\ns = """\n# not a comment\n"""\n'
    with pytest.raises(EditError, match="no single if/try statement"):
        edit_python(source, [PyEdit("fold_branch", 1, 4, rewrite="delete", statement=(1, 4))])


def test_delete_range_of_definitions_whose_body_ends_in_comments() -> None:
    source = d("""
        import os


        def dead():
            if os.sep:
                return 1
                # in if
            # in dead
        # col0 after dead


        class Dead:
            def m(self):
                return 1
                # in m
            # in Dead

            # in Dead 2
        # col0 after Dead


        def live():
            return 2
        """)
    ranges = {f.name: (f.start_line, f.end_line)
              for f in extract("m.py", source.encode()).definitions}
    assert ranges["dead"] == (4, 8) and ranges["Dead"] == (12, 18)  # comments included
    out = edit_python(source, [PyEdit("delete_range", *ranges["dead"]),
                               PyEdit("delete_range", *ranges["Dead"])])
    assert out == d("""
        import os


        # col0 after dead


        # col0 after Dead


        def live():
            return 2
        """)
    ast.parse(out)
