"""Discover stage: which files of the tree are tests -- by convention (a ``tests``/``test``
folder, ``test_*.py``, ``*_test.py``, ``conftest.py``) or by the profile's ``test_paths``
globs. Tests lie outside the deletion scope: they go whole or stay whole.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from analyzer.config.globs import path_matches

_TEST_DIR = re.compile(r"^(tests?|testing|e2e_tests?|\w+_tests?)$")


def is_test_module(path: str) -> bool:
    """A file pytest collects tests from (``test_*.py``, ``*_test.py``): a test, where
    other files under a test folder are its support (fixtures, runners, utilities)."""
    name = PurePosixPath(path).name
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def is_test_path(path: str, globs: tuple[str, ...] = ()) -> bool:
    """Test files by convention, or by the profile's ``test_paths`` globs."""
    p = PurePosixPath(path)
    if any(_TEST_DIR.match(part) for part in p.parts[:-1]):
        return True
    if p.name.startswith("test_") or p.name.endswith("_test.py") or p.name == "conftest.py":
        return True
    return bool(globs) and path_matches(path, globs)
