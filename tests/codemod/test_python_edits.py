"""Codemod stage: LibCST edits of one file, before/after text written by hand."""

from __future__ import annotations

import textwrap

import pytest

from analyzer.codemod.python_edits import EditError, PyEdit, edit_python


def d(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_promote_elif_and_delete_else() -> None:
    src = d("""
        # platform switch
        if on_npu:
            import npu_ops
        elif on_cuda:
            import cuda_ops  # fast path
        else:
            cuda_ops = None
        x = 1
        """)
    out = edit_python(src, [
        PyEdit("fold_branch", 2, 3, rewrite="promote_elif", statement=(2, 7)),
        PyEdit("fold_branch", 6, 7, rewrite="delete_clause", statement=(2, 7))])
    assert out == d("""
        # platform switch
        if on_cuda:
            import cuda_ops  # fast path
        x = 1
        """)


def test_unwrap_else_with_nested_blocks() -> None:
    src = d("""
        def f(a):
            if NPU:
                return 0
            else:
                for i in a:
                    if i:
                        # keep me
                        yield i
                return 1
        """)
    out = edit_python(src, [PyEdit("fold_branch", 2, 4, rewrite="unwrap_else",
                                   statement=(2, 9), keep=(5, 9))])
    assert out == d("""
        def f(a):
            for i in a:
                if i:
                    # keep me
                    yield i
            return 1
        """)


def test_decorated_function_and_inner_comments_go_comment_above_stays() -> None:
    src = d("""
        import x


        # helpers below
        @register("fa3")
        @other
        def dead():
            # inside: goes
            return 1


        def live():
            return 2
        """)
    out = edit_python(src, [PyEdit("delete_range", 5, 9)])
    assert out == d("""
        import x


        # helpers below


        def live():
            return 2
        """)


def test_try_unwrap_dead_optional_import() -> None:
    src = d("""
        try:
            from pkg import flash_ops  # noqa: F401
        except ImportError:
            flash_ops = None
            HAS = False


        def f():
            return flash_ops
        """)
    out = edit_python(src, [PyEdit("fold_branch", 1, 3, rewrite="try_unwrap",
                                   statement=(1, 5), keep=(4, 5))])
    assert out == d("""
        flash_ops = None
        HAS = False


        def f():
            return flash_ops
        """)


def test_remove_names_from_parenthesised_import() -> None:
    src = d("""
        from pkg.mod import (
            a,
            b,  # dead one
            c,
        )
        """)
    out = edit_python(src, [PyEdit("remove_import_names", 1, 5, names=("b",))])
    assert out == "from pkg.mod import (\n    a,\n    c,\n)\n"
    out = edit_python(src, [PyEdit("remove_import_names", 1, 5, names=("c",))])
    assert out == "from pkg.mod import (\n    a,\n    b,  # dead one\n)\n"
    out = edit_python(src + "\nx = 1\n",
                      [PyEdit("remove_import_names", 1, 5, names=("a", "b", "c"))])
    assert out == "x = 1\n"


def test_if_whose_only_statement_is_deleted_gets_pass() -> None:
    src = d("""
        def f():
            if cond:
                import dead_mod
            return 1
        """)
    out = edit_python(src, [PyEdit("delete_range", 3, 3)])
    assert out == d("""
        def f():
            if cond:
                pass
            return 1
        """)


# Small sources: (source, edits, the text after them), written by hand.
SMALL_EDITS = [
    pytest.param("if True_:\n    a = 1\nelse:\n    a = 2\nprint(a)\n",
                 [PyEdit("fold_branch", 3, 4, rewrite="unwrap_if", statement=(1, 4),
                         keep=(2, 2))],
                 "a = 1\nprint(a)\n", id="unwrap-if-keeps-head-body"),
    pytest.param("from m import a, b as bb, c\nprint(a, c)\n",
                 [PyEdit("remove_import_names", 1, 1, names=("bb", "c"))],
                 "from m import a\nprint(a, c)\n", id="remove-names-single-line-and-alias"),
    pytest.param("def f(x):\n    if _is_npu:\n        return g(x)\n",
                 [PyEdit("fold_branch", 2, 3, rewrite="delete", statement=(2, 3))],
                 "def f(x):\n    pass\n", id="fold-delete-in-function-body-gets-pass"),
    pytest.param('CHOICES = ["triton", "fa3", "flashmla"]\nT = ("fa3", "x")\n',
                 [PyEdit("remove_list_element", 1, 1, names=("fa3",)),
                  PyEdit("remove_list_element", 1, 1, names=("flashmla",)),
                  PyEdit("remove_list_element", 2, 2, names=("fa3",))],
                 'CHOICES = ["triton"]\nT = ("x",)\n', id="list-elements-on-shared-line"),
    pytest.param('B = {"fa3": FA, "triton": T}\nL = ["fa3", "b"]\n',
                 [PyEdit("remove_list_element", 1, 1, names=("fa3",)),
                  PyEdit("remove_list_element", 2, 2, names=("fa3",))],
                 'B = {"triton": T}\nL = ["b"]\n', id="dict-entry-and-first-element"),
    pytest.param('B = {\n    "triton": T,\n    "fa3": FA,\n}\n',
                 [PyEdit("delete_range", 3, 3)],
                 'B = {\n    "triton": T,\n}\n', id="delete-range-of-dict-entry-on-its-own-line"),
    pytest.param('dev = (get() if is_cuda() else "cpu")\nother = 1 if a else 2\n',
                 [PyEdit("fold_branch", 1, 1, rewrite="ifexp", statement=(1, 1), keep=(1, 1),
                         reason="... if is_cuda() else ...: folds to True (x)")],
                 'dev = (get())\nother = 1 if a else 2\n', id="ifexp-keeps-the-live-arm"),
    pytest.param('CHOICES = [\n    "triton",\n    "fa3",\n    "flashinfer",\n    "flashmla",\n]\n',
                 [PyEdit("delete_range", 3, 3), PyEdit("delete_range", 5, 5)],
                 'CHOICES = [\n    "triton",\n    "flashinfer",\n]\n',
                 id="several-elements-of-one-list-in-separate-edits"),
]


@pytest.mark.parametrize(("src", "edits", "expected"), SMALL_EDITS)
def test_small_edit(src: str, edits: list[PyEdit], expected: str) -> None:
    assert edit_python(src, edits) == expected


@pytest.mark.parametrize(("src", "edits", "match"), [
    pytest.param("def f():\n    return 1\n",
                 [PyEdit("delete_range", 1, 2), PyEdit("delete_range", 2, 2)], "overlapping",
                 id="overlapping-edits"),
    pytest.param("x = (\n    1,\n)\ny = 2\n", [PyEdit("delete_range", 1, 2)], None,
                 id="range-that-is-not-whole-statements"),
])
def test_refused(src: str, edits: list[PyEdit], match: str | None) -> None:
    with pytest.raises(EditError, match=match):
        edit_python(src, edits)
