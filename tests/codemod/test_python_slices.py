"""Codemod stage: LibCST parses only the regions a file's edits need (python_slices); the
edited text is the one the whole file's edit gives. Regions and outputs written by hand."""

from __future__ import annotations

import textwrap

import pytest

from analyzer.codemod.python_edits import PyEdit, _edit_whole, edit_python
from analyzer.codemod.python_slices import regions


def d(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


CLASS = d("""
    import os


    class Runner:
        \"\"\"Runs.\"\"\"

        def a(self):
            return 1

        # the fa3 path
        def fa3(self):
            if os.environ.get("X"):
                return 2
            return 3
            # end of fa3

        def c(self):
            return 4


    def tail():
        return 5
    """)


def spans(source: str, edits: list[PyEdit]) -> list[tuple[int, int, bool, bool]] | None:
    found = regions(source, edits)
    return None if found is None else [(r.start, r.end, r.lead, r.trail) for r in found]


def test_a_method_deleted_is_edited_between_its_neighbours() -> None:
    edits = [PyEdit("delete_range", 11, 15)]
    # from after a()'s last line to before c(): a() and c() stand outside as ``pass``
    assert spans(CLASS, edits) == [(9, 16, True, True)]
    out = edit_python(CLASS, edits)
    assert out == _edit_whole(CLASS, edits)
    assert out == d("""
        import os


        class Runner:
            \"\"\"Runs.\"\"\"

            def a(self):
                return 1

            # the fa3 path

            def c(self):
                return 4


        def tail():
            return 5
        """)


def test_an_edit_inside_a_method_descends_into_its_body() -> None:
    edits = [PyEdit("fold_branch", 12, 13, rewrite="delete", statement=(12, 13))]
    # the if, inside fa3's body: from the body's start to before ``return 3``
    assert spans(CLASS, edits) == [(12, 13, False, True)]
    out = edit_python(CLASS, edits)
    assert out == _edit_whole(CLASS, edits)
    assert "if os.environ" not in out and "return 3\n        # end of fa3\n" in out


def test_a_module_level_import_and_a_method_are_two_regions() -> None:
    src = "import os\nimport sys\n" + CLASS[len("import os\n"):]
    edits = [PyEdit("delete_range", 2, 2), PyEdit("delete_range", 12, 16)]
    assert spans(src, edits) == [(2, 4, True, True), (10, 17, True, True)]
    assert edit_python(src, edits) == _edit_whole(src, edits)


def test_the_last_method_carries_its_comments_into_the_class_footer() -> None:
    edits = [PyEdit("delete_range", 17, 18)]
    assert spans(CLASS, edits) == [(16, 18, True, False)]
    out = edit_python(CLASS, edits)
    assert out == _edit_whole(CLASS, edits)
    assert "def c" not in out and "def tail" in out


def test_every_statement_of_a_body_removed_leaves_pass() -> None:
    src = d("""
        def f():
            import npu
            npu.init()


        x = 1
        """)
    edits = [PyEdit("delete_range", 2, 3)]
    assert spans(src, edits) == [(2, 3, False, False)]
    out = edit_python(src, edits)
    assert out == _edit_whole(src, edits) == d("""
        def f():
            pass


        x = 1
        """)


def test_the_first_statement_removed_strips_the_blank_lines_after_the_header() -> None:
    src = d("""
        #!/usr/bin/env python
        import npu

        import os
        print(os)
        """)
    edits = [PyEdit("delete_range", 2, 2)]
    assert spans(src, edits) == [(1, 3, False, True)]
    out = edit_python(src, edits)
    assert out == _edit_whole(src, edits)
    assert out.startswith("#!/usr/bin/env python\n") and "import npu" not in out


def test_a_header_edit_or_an_edit_between_statements_takes_larger_regions() -> None:
    src = d("""
        @register("fa3")
        class A:
            x = 1

        # only a comment
        y = 2
        """)
    # the decorator is the class's header: the class is the region (with y as stand-in)
    assert spans(src, [PyEdit("delete_range", 1, 3)]) == [(1, 5, False, True)]
    # lines without a statement: the whole file
    assert spans(src, [PyEdit("delete_range", 5, 5)]) is None


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_newlines_are_kept(newline: str) -> None:
    src = newline.join(["import os", "if os.sep: import npu", "def f():", "    import npu",
                        "    return 1", ""])
    edits = [PyEdit("delete_range", 4, 4)]
    assert spans(src, edits) == [(4, 4, False, True)]
    out = edit_python(src, edits)
    assert out == _edit_whole(src, edits)
    assert out == newline.join(["import os", "if os.sep: import npu", "def f():",
                                "    return 1", ""])


def hollows(source: str, edits: list[PyEdit]) -> list[tuple[tuple[int, int], ...]] | None:
    found = regions(source, edits)
    return None if found is None else [r.hollow for r in found]


def test_a_deleted_method_is_parsed_hollow_and_its_comments_land_as_before() -> None:
    edits = [PyEdit("delete_range", 11, 15)]
    # fa3's body, lines 12-14 (the if and ``return 3``), is one ``pass``; its footer comment
    # (line 15, in the range) and the comment above the def (line 10) stay as written
    assert hollows(CLASS, edits) == [((12, 14),)]
    out = edit_python(CLASS, edits)
    assert out == _edit_whole(CLASS, edits)
    assert "# the fa3 path\n" in out and "# end of fa3" not in out and "def fa3" not in out


def test_a_decorated_class_is_hollowed_below_its_header_not_its_nested_defs() -> None:
    src = d("""
        import os


        @register("npu")
        class NpuBackend(
            Base,
        ):
            def init(self):
                return os.sep
                    # deeper than the body
                # at the method's body

            def run(self):
                return 2
            # at the class body
        # at the module
        x = 1
        """)
    edits = [PyEdit("delete_range", 4, 15)]
    # from the first method (line 8) to the class's last line of code (14): one ``pass``;
    # the methods inside are not hollowed again
    assert hollows(src, edits) == [((8, 14),)]
    out = edit_python(src, edits)
    assert out == _edit_whole(src, edits) == d("""
        import os


        # at the module
        x = 1
        """)


def test_a_body_another_edit_reaches_into_is_not_hollowed() -> None:
    src = d("""
        def keep():
            if a:
                return 1
            return 2


        def drop():
            return 3
        """)
    # the fold is inside keep(), the deletion is drop(): only drop's body (line 8) would
    # be hollowed, and it is one line: nothing is
    edits = [PyEdit("fold_branch", 2, 3, rewrite="delete", statement=(2, 3)),
             PyEdit("delete_range", 7, 8)]
    assert all(h == () for h in hollows(src, edits) or [])
    assert edit_python(src, edits) == _edit_whole(src, edits)
    # a range that ends inside a body's lines removes no whole definition: nothing hollow
    assert hollows(CLASS, [PyEdit("delete_range", 11, 13)]) in (None, [()])


def test_a_file_without_a_final_newline_keeps_its_ending() -> None:
    src = "import os\n\n\ndef npu():\n    import torch_npu\n    return torch_npu"
    edits = [PyEdit("delete_range", 4, 6)]
    assert hollows(src, edits) == [((5, 6),)]
    out = edit_python(src, edits)
    assert out == _edit_whole(src, edits) == "import os"
