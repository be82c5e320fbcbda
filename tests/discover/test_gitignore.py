"""Discover stage, gitignore matching (``analyzer/discover/gitignore.py``): patterns, negation,
anchoring and nesting, with hand-written expectations."""

from __future__ import annotations

import pytest

from analyzer.discover.gitignore import PatternList, compile_pattern, is_ignored


def ignored(patterns: str, path: str, is_dir: bool = False, base: str = "") -> bool:
    return is_ignored(path, is_dir, [PatternList.from_text(base, patterns)])


@pytest.mark.parametrize(
    ("patterns", "path", "is_dir", "expected"),
    [
        ("*.log", "a/b/x.log", False, True),
        ("*.log", "a/b/x.logs", False, False),
        ("foo", "a/foo", True, True),  # no slash: any depth, files and dirs
        ("foo/", "a/foo", True, True),  # dir-only
        ("foo/", "a/foo", False, False),
        ("/foo", "foo", False, True),  # anchored
        ("/foo", "a/foo", False, False),
        ("a/foo", "a/foo", False, True),  # middle slash anchors too
        ("a/foo", "x/a/foo", False, False),
        ("**/foo", "x/y/foo", False, True),
        ("**/foo", "foo", False, True),
        ("**/foo/bar", "x/foo/bar", False, True),
        ("abc/**", "abc/x/y", False, True),
        ("abc/**", "abc", True, False),
        ("a/**/b", "a/b", False, True),
        ("a/**/b", "a/x/y/b", False, True),
        ("a/**/b", "a/xb", False, False),
        ("f?o", "fxo", False, True),
        ("f?o", "f/o", False, False),
        ("*.py[cod]", "m.pyc", False, True),
        ("*.py[cod]", "m.py", False, False),
        ("[!a]x", "bx", False, True),
        ("[!a]x", "ax", False, False),
        ("[a-c]z", "bz", False, True),
        ("\\#keep", "#keep", False, True),
        ("\\!bang", "!bang", False, True),
        ("trail   ", "trail", False, True),
        ("trail\\ ", "trail ", False, True),
        ("# comment", "# comment", False, False),
        ("*.log\n!keep.log", "keep.log", False, False),
        ("*.log\n!keep.log", "other.log", False, True),
        ("!keep.log\n*.log", "keep.log", False, True),  # last match wins
        ("foo*bar", "foo/bar", False, False),  # '*' never crosses '/'
    ],
)
def test_gitignore_patterns(patterns: str, path: str, is_dir: bool, expected: bool) -> None:
    assert ignored(patterns, path, is_dir) is expected


def test_gitignore_blank_and_comment_lines_compile_to_nothing() -> None:
    assert compile_pattern("") is None
    assert compile_pattern("   ") is None
    assert compile_pattern("# x") is None
    assert compile_pattern("!") is None


def test_nested_pattern_list_only_applies_below_its_base() -> None:
    plist = PatternList.from_text("sub", "/x.py\n")
    assert plist.match("sub/x.py", False) is True
    assert plist.match("x.py", False) is None
    assert plist.match("sub/deep/x.py", False) is None
    assert plist.match("subway/x.py", False) is None
