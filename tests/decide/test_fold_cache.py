"""The folds kept in the facts cache (``fold_all`` with a cache and a tree key): read back for
the same tree and context, with the attribute names the folding looked up tree-wide noted
again; folded afresh when the context or the tree's key differs."""

from __future__ import annotations

from pathlib import Path

from analyzer.decide import guards
from analyzer.decide.guards_eval import GuardContext
from tests.helpers import module_index, stored

FILES = {
    "app/__init__.py": "",
    "app/config.py": "def is_sparse(config):\n    return bool(config)\n",
    # `self.use_sparse` is decided because nothing else assigns it: a name looked up
    # tree-wide (ModuleIndex.sought_by_name)
    "app/model.py": "from app.config import is_sparse\n\n\nclass Model:\n"
                    "    def __init__(self, config):\n"
                    "        self.use_sparse = is_sparse(config)\n\n"
                    "    def forward(self, x):\n        if self.use_sparse:\n"
                    "            return 2 * x\n        return x\n",
}
CTX = GuardContext({"app.config.is_sparse": False})


def test_read_back_for_the_same_tree_and_context(tmp_path: Path, folded: list[str]) -> None:
    cache = tmp_path / "cache"
    index = module_index(tmp_path / "tree", FILES)
    first = stored(cache, guards.fold_all, index, CTX, "tree-1")
    assert [(m, r.start_line, r.end_line) for m, rs in first.items() for r in rs] == [
        ("app.model", 9, 10)]
    assert "use_sparse" in index.sought_by_name
    assert folded
    folded.clear()
    again = module_index(tmp_path / "tree2", FILES)  # a new scan of the same tree
    assert stored(cache, guards.fold_all, again, CTX, "tree-1") == first
    assert folded == []  # read back, nothing folded
    assert "use_sparse" in again.sought_by_name  # ... and the name noted again


def test_another_context_or_tree_folds_again(tmp_path: Path, folded: list[str]) -> None:
    cache = tmp_path / "cache"
    index = module_index(tmp_path / "tree", FILES)
    stored(cache, guards.fold_all, index, CTX, "tree-1")
    folded.clear()
    # the branch taken now: nothing folds (the `return x` after it is no else clause)
    assert stored(cache, guards.fold_all, index,
                  GuardContext({"app.config.is_sparse": True}), "tree-1") == {}
    assert folded
    folded.clear()
    stored(cache, guards.fold_all, index, CTX, "tree-2")
    assert folded
    folded.clear()
    guards.fold_all(index, CTX)  # no cache: always folded
    assert folded


def test_the_context_digest_ignores_hash_order() -> None:
    a = GuardContext({"x": 1, "y": False}, (("p", frozenset({"fa3", "fa4", 3})),),
                     frozenset({"m1", "m2"}), forced={("m", 3): "why", ("m", 1): "w"})
    b = GuardContext({"y": False, "x": 1}, (("p", frozenset({3, "fa4", "fa3"})),),
                     frozenset({"m2", "m1"}), forced={("m", 1): "w", ("m", 3): "why"})
    assert a.digest() == b.digest()
    assert a.digest() != GuardContext({"x": 1, "y": True}).digest()
    assert a.digest() != GuardContext({"x": 1, "y": False}, (("p", frozenset({"fa3"})),),
                                      frozenset({"m1", "m2"}),
                                      forced={("m", 3): "why", ("m", 1): "w"}).digest()
