"""``ModuleIndex.module_at``: the module a relative path to a Python file names -- the file
whose path it is, or ends (a path from a deeper root), or that ends in it -- when exactly one
file matches (expected values written from the tree below)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import module_index

FILES = {
    "python/pkg/__init__.py": "",
    "python/pkg/mod.py": "X = 1\n",
    "python/pkg/util.py": "Y = 1\n",
    "tools/pkg/mod.py": "Z = 1\n",
}


def test_a_path_one_file_ends_in_names_its_module(tmp_path: Path) -> None:
    index = module_index(tmp_path, FILES)
    assert index.module_at("pkg/util.py") == "python.pkg.util"
    assert index.module_at("util.py") == "python.pkg.util"


def test_the_whole_path_and_a_longer_one_name_the_file(tmp_path: Path) -> None:
    index = module_index(tmp_path, FILES)
    assert index.module_at("python/pkg/mod.py") == "python.pkg.mod"
    # a path from a root above the tree's: the file's path is one of its tails
    assert index.module_at("checkout/python/pkg/util.py") == "python.pkg.util"


def test_two_files_ending_so_or_a_cut_inside_a_name_name_nothing(tmp_path: Path) -> None:
    index = module_index(tmp_path, FILES)
    assert index.module_at("pkg/mod.py") is None  # python/pkg/mod.py and tools/pkg/mod.py
    assert index.module_at("kg/util.py") is None  # not at a slash
    assert index.module_at("pkg/missing.py") is None
