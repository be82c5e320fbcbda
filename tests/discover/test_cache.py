"""The cached discovery: reused while no listed folder, ignore file or metadata changed
(stat signatures, racy ones never trusted); any change of the tree walks it again."""

from __future__ import annotations

import os
import time

import pytest

import analyzer.discover.cache as dc
from analyzer.discover.digests import RACY_NS
from analyzer.discover.walk import discover
from tests.helpers import store_entries, write_tree

TREE = {
    "python/app/__init__.py": "",
    "python/app/main.py": "import app.util\n",
    "python/app/util.py": "X = 1\n",
    "python/app/gen/skip.py": "",
    "python/pyproject.toml": '[project]\nname = "app"\n',
    ".gitignore": "gen/\n",
}


def age(root) -> None:
    """Put every mtime well in the past, so nothing is racy."""
    old = time.time_ns() - 10 * RACY_NS
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            os.utime(os.path.join(dirpath, name), ns=(old, old))
        os.utime(dirpath, ns=(old, old))


@pytest.fixture
def tree(tmp_path):
    root = write_tree(tmp_path / "repo", TREE)
    age(root)
    return root


def no_walk(*args, **kwargs):
    raise AssertionError("walked again")


def test_unchanged_tree_is_not_walked_again(tree, tmp_path, monkeypatch):
    first = dc.discover_cached(tree, (), tmp_path / "c")
    assert first == discover(tree)
    monkeypatch.setattr(dc, "walk_tree", no_walk)
    again = dc.discover_cached(tree, (), tmp_path / "c")
    assert again == first
    # file signatures are fresh (the digest index relies on them)
    assert [f.stat_key for f in again.files] == [f.stat_key for f in discover(tree).files]


@pytest.mark.parametrize("change", ["new file", "deleted file", "gitignore", "metadata"])
def test_any_change_walks_again(tree, tmp_path, change):
    dc.discover_cached(tree, (), tmp_path / "c")
    if change == "new file":
        (tree / "python/app/extra.py").write_text("")
    elif change == "deleted file":
        (tree / "python/app/util.py").unlink()
    elif change == "gitignore":
        (tree / ".gitignore").write_text("")  # gen/ is no longer ignored
    else:
        (tree / "python/pyproject.toml").write_text('[project]\nname = "app2"\n')
    assert dc.discover_cached(tree, (), tmp_path / "c") == discover(tree)


def test_other_excludes_and_corrupt_entries_walk_again(tree, tmp_path, monkeypatch):
    dc.discover_cached(tree, (), tmp_path / "c")
    assert dc.discover_cached(tree, ("python/app/util.py",), tmp_path / "c") == discover(
        tree, extra_excludes=("python/app/util.py",))
    for entry in store_entries(tmp_path / "c", "discovery"):
        entry.write_bytes(b"0" * 64 + b"\nbroken")
    assert dc.discover_cached(tree, (), tmp_path / "c") == discover(tree)


def test_racy_folders_are_not_trusted(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "repo", TREE)  # just written: mtimes are "now"
    dc.discover_cached(root, (), tmp_path / "c")
    walks = []
    real = dc.walk_tree
    monkeypatch.setattr(dc, "walk_tree", lambda *a: walks.append(1) or real(*a))
    dc.discover_cached(root, (), tmp_path / "c")
    assert walks == [1]
