"""The guards' tree-wide tables (``analyzer.decide.guards_names``): every assignment that may
set an attribute name, in the tree's order, and the class hierarchy by name. Expectations
written from the small tree below."""

from __future__ import annotations

from pathlib import Path

from analyzer.decide.guards_names import AttributeTable, class_tables, closure
from tests.helpers import module_index

FILES = {
    "pkg/__init__.py": "",
    # (modules indexed in the tree's order: pkg, pkg.a, pkg.b, pkg.c)
    "pkg/a.py": ("class Base:\n"
                 "    def __init__(self, config):\n"
                 "        self.use_x = config.x\n"
                 "        self.size = 1\n"
                 "\n\nclass Layer(Base):\n"
                 "    def reset(self):\n"
                 "        self.use_x = False\n"),
    "pkg/b.py": ("from pkg.a import Layer\n\n\n"
                 "class Layer(Layer, Mixin):\n"  # a second class of that name
                 "    pass\n"
                 "\n\nclass Other:\n"
                 "    use_x = True\n"),
    "pkg/c.py": ("def toggle(model):\n"
                 "    model.size = 2\n"),
}


def test_a_names_assignments_across_modules_in_the_trees_order(tmp_path: Path) -> None:
    table = AttributeTable(module_index(tmp_path, FILES))
    use_x = table.get("use_x")
    assert use_x is not None
    assert [(m, a.scope, a.target, a.line) for m, a in use_x.items] == [
        ("pkg.a", "Base", "self.use_x", 3),
        ("pkg.a", "Layer", "self.use_x", 9),
        ("pkg.b", "Other", "use_x", 9),
    ]
    assert use_x.at[("pkg.a", "Base", "self.use_x")] == [0]
    assert use_x.in_class == {"Base": [0], "Layer": [1], "Other": [2]}
    assert use_x.odd  # (a class attribute of that name)
    size = table.get("size")
    assert size is not None
    assert [(m, a.scope, a.target) for m, a in size.items] == [
        ("pkg.a", "Base", "self.size"), ("pkg.c", "toggle", "model.size")]
    assert size.odd  # (`model.size =` outside any class)
    assert table.get("nothing_sets_this") is None
    assert table.get("use_x") is use_x  # (made once)


def test_only_self_assignments_in_methods_are_not_odd(tmp_path: Path) -> None:
    table = AttributeTable(module_index(tmp_path, {
        "m.py": "class A:\n    def f(self):\n        self.on = True\n\n\n"
                "class B(A):\n    def g(self):\n        self.on = False\n"}))
    on = table.get("on")
    assert on is not None and not on.odd
    assert [a.scope for _m, a in on.items] == ["A", "B"]


def test_the_class_hierarchy_by_name_each_name_once(tmp_path: Path) -> None:
    bases, children = class_tables(module_index(tmp_path, FILES))
    # the two classes named Layer: their bases merged, each once
    assert bases["Layer"] == ("Base", "Layer", "Mixin")
    assert bases["Base"] == () and bases["Other"] == ()
    assert children == {"Base": ["Layer"], "Layer": ["Layer"], "Mixin": ["Layer"]}
    assert closure("Layer", bases) == {"Base", "Layer", "Mixin"}  # (a cycle: itself)
    assert closure("Base", children) == {"Layer"}
