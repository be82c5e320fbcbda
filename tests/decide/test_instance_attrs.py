"""Guard folding through instance attributes: ``self.use_x = probe(config)`` assigned once in
a class (and nowhere else that may set it) folds ``if self.use_x:`` when the profile fixes
``probe``. Expectations written from the small trees below."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.pipeline.scan import run_scan
from tests.helpers import write_tree

PROFILE = '''name = "t"
description = "t"
entry_points = ["app.main:main"]
default_drops = ["sparse"]

[features.sparse]
description = "sparse attention"
paths = ["app/sparse.py"]
constants = { "app.config.is_sparse" = false }
'''

MODEL = '''from app.config import is_sparse


class Model:
    def __init__(self, config):
        self.use_sparse = is_sparse(config)

    def forward(self, x):
        if self.use_sparse:
            from app.sparse import sparse_attention

            return sparse_attention(x)
        return x
'''


def scan(tmp_path: Path, extra: dict[str, str]):
    tree = write_tree(tmp_path / "t", {
        "depgraph.toml": PROFILE,
        "app/__init__.py": "",
        "app/config.py": "def is_sparse(config):\n    return bool(config)\n",
        "app/sparse.py": "def sparse_attention(x):\n    return x\n",
        "app/model.py": MODEL,
        "app/main.py": "from app.model import Model\n\n\ndef main():\n"
                       "    return Model(None).forward(1)\n",
        **extra,
    })
    return run_scan(tree, [])


def test_an_attribute_set_once_from_a_fixed_probe_folds(tmp_path: Path) -> None:
    result = scan(tmp_path, {})
    planned = {(d.kind, d.path, d.start_line) for d in result.plan.deletions}
    assert planned == {("fold_branch", "app/model.py", 9),
                       ("delete_file", "app/sparse.py", None)}


@pytest.mark.parametrize("setter", [
    # another assignment in a subclass
    "from app.model import Model\n\n\nclass Sub(Model):\n"
    "    def enable(self):\n        self.use_sparse = True\n",
    # an assignment from outside through another object
    "def toggle(model):\n    model.use_sparse = True\n",
    # a class attribute of that name
    "class Settings:\n    use_sparse = True\n",
])
def test_anything_else_that_may_set_it_keeps_the_branch(tmp_path: Path, setter: str) -> None:
    result = scan(tmp_path, {"app/other.py": setter})
    assert not any(d.path in ("app/model.py", "app/sparse.py") for d in result.plan.deletions)


@pytest.mark.parametrize("setter", [
    # a subclass setting it from the same fixed probe: the same value
    "from app.config import is_sparse\nfrom app.model import Model\n\n\nclass Sub(Model):\n"
    "    def reset(self, config):\n        self.use_sparse = is_sparse(config)\n",
    # a class related to Model by no name sets an attribute of that name on its own objects
    "class Other:\n    def __init__(self):\n        self.use_sparse = True\n",
])
def test_the_same_value_or_an_unrelated_class_still_folds(tmp_path: Path, setter: str) -> None:
    result = scan(tmp_path, {"app/other.py": setter})
    planned = {(d.kind, d.path, d.start_line) for d in result.plan.deletions}
    assert {("fold_branch", "app/model.py", 9), ("delete_file", "app/sparse.py", None)} <= planned
