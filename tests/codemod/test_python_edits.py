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


def test_unwrap_if_keeps_head_body() -> None:
    src = "if True_:\n    a = 1\nelse:\n    a = 2\nprint(a)\n"
    out = edit_python(src, [PyEdit("fold_branch", 3, 4, rewrite="unwrap_if",
                                   statement=(1, 4), keep=(2, 2))])
    assert out == "a = 1\nprint(a)\n"


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


def test_remove_names_single_line_and_alias() -> None:
    src = "from m import a, b as bb, c\nprint(a, c)\n"
    out = edit_python(src, [PyEdit("remove_import_names", 1, 1, names=("bb", "c"))])
    assert out == "from m import a\nprint(a, c)\n"


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


def test_fold_delete_in_function_body_gets_pass() -> None:
    src = "def f(x):\n    if _is_npu:\n        return g(x)\n"
    out = edit_python(src, [PyEdit("fold_branch", 2, 3, rewrite="delete", statement=(2, 3))])
    assert out == "def f(x):\n    pass\n"


def test_list_elements_on_shared_line() -> None:
    src = 'CHOICES = ["triton", "fa3", "flashmla"]\nT = ("fa3", "x")\n'
    out = edit_python(src, [PyEdit("remove_list_element", 1, 1, names=("fa3",)),
                            PyEdit("remove_list_element", 1, 1, names=("flashmla",)),
                            PyEdit("remove_list_element", 2, 2, names=("fa3",))])
    assert out == 'CHOICES = ["triton"]\nT = ("x",)\n'


def test_dict_entry_and_first_element() -> None:
    src = 'B = {"fa3": FA, "triton": T}\nL = ["fa3", "b"]\n'
    out = edit_python(src, [PyEdit("remove_list_element", 1, 1, names=("fa3",)),
                            PyEdit("remove_list_element", 2, 2, names=("fa3",))])
    assert out == 'B = {"triton": T}\nL = ["b"]\n'


def test_delete_range_of_dict_entry_on_its_own_line() -> None:
    src = 'B = {\n    "triton": T,\n    "fa3": FA,\n}\n'
    out = edit_python(src, [PyEdit("delete_range", 3, 3)])
    assert out == 'B = {\n    "triton": T,\n}\n'


def test_ifexp_keeps_the_live_arm() -> None:
    src = 'dev = (get() if is_cuda() else "cpu")\nother = 1 if a else 2\n'
    out = edit_python(src, [PyEdit("fold_branch", 1, 1, rewrite="ifexp", statement=(1, 1),
                                   keep=(1, 1), reason="... if is_cuda() else ...: folds to "
                                                       "True (x)")])
    assert out == 'dev = (get())\nother = 1 if a else 2\n'


def test_overlapping_edits_are_refused() -> None:
    src = "def f():\n    return 1\n"
    with pytest.raises(EditError, match="overlapping"):
        edit_python(src, [PyEdit("delete_range", 1, 2), PyEdit("delete_range", 2, 2)])


def test_range_that_is_not_whole_statements_is_refused() -> None:
    src = "x = (\n    1,\n)\ny = 2\n"
    with pytest.raises(EditError):
        edit_python(src, [PyEdit("delete_range", 1, 2)])


def test_several_elements_of_one_list_in_separate_edits():
    from analyzer.codemod.python_edits import PyEdit, edit_python

    src = 'CHOICES = [\n    "triton",\n    "fa3",\n    "flashinfer",\n    "flashmla",\n]\n'
    edits = [PyEdit(kind="delete_range", start=3, end=3),
             PyEdit(kind="delete_range", start=5, end=5)]
    assert edit_python(src, edits) == 'CHOICES = [\n    "triton",\n    "flashinfer",\n]\n'
