"""import_module of an f-string with finitely many values (analyzer/extract/python_fstrings)."""

from __future__ import annotations

from analyzer.extract.python import extract
from analyzer.extract.python_fstrings import OWN_NAME, with_own_name


def imported(source: str) -> list[str]:
    facts = extract("pkg/__init__.py", source.encode())
    return [s.value for s in facts.strings if s.kind == "import_module"]


def test_a_loop_over_a_module_level_tuple_names_each_submodule() -> None:
    source = ('from importlib import import_module\n_G = ("a", "b")\n'
              'for g in _G:\n    import_module(f"{__name__}.{g}")\n')
    assert imported(source) == [f"{OWN_NAME}.a", f"{OWN_NAME}.b"]
    facts = with_own_name(extract("pkg/__init__.py", source.encode()), "pkg")
    assert [s.value for s in facts.strings] == ["pkg.a", "pkg.b"]


def test_an_inline_list_and_a_literal_start() -> None:
    source = ('import importlib\nfor kind in ["x", "y"]:\n'
              '    importlib.import_module(f"pkg.codecs.{kind}_codec")\n')
    assert imported(source) == ["pkg.codecs.x_codec", "pkg.codecs.y_codec"]


def test_no_finite_set_is_no_name() -> None:
    # a module-level list may grow; a parameter, a conversion, a name bound twice: unknown
    assert imported('from importlib import import_module\n_G = ["a"]\n'
                    'for g in _G:\n    import_module(f"{__name__}.{g}")\n') == []
    assert imported('from importlib import import_module\n'
                    'def load(g):\n    return import_module(f"pkg.{g}")\n') == []
    assert imported('from importlib import import_module\nfor g in ("a",):\n'
                    '    import_module(f"pkg.{g!r}")\n') == []
    assert imported('from importlib import import_module\n_G = ("a",)\n_G = ("b",)\n'
                    'for g in _G:\n    import_module(f"pkg.{g}")\n') == []
