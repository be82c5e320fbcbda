"""A dead file nothing parsed goes with the deletions whose module it names as a word
(``analyzer.plan.feature_sets._unparsed_uses``): a name inside a longer word is no mention,
and a module tail that is no identifier (a script ``run-bench.py``) is still found."""

from __future__ import annotations

from analyzer.model import Deletion
from analyzer.plan.feature_sets import _unparsed_uses, _word_finder


def _file(path: str) -> Deletion:
    return Deletion("delete_file", path, "0" * 64, 1, "unreachable from roots",
                    category="python-file")


def test_words_not_parts_of_words() -> None:
    find = _word_finder({b"flash_mla", b"mla", b"fa3"})
    assert find(b"import flash_mla\nx = mla_v2 + fa3_ops\n") == {b"flash_mla"}
    assert find(b"from . import mla, fa3") == {b"mla", b"fa3"}
    assert find(b"# nothing here") == set()


def test_tails_that_are_no_identifier() -> None:
    find = _word_finder({b"run-bench", b"mla"})
    assert find(b"python run-bench.py --mla") == {b"run-bench", b"mla"}
    assert find(b"run-benchmark") == set()


def test_an_unparsed_dead_file_goes_with_what_it_names() -> None:
    deletions = [_file("pkg/flash_mla.py"), _file("pkg/mla.py"), _file("tools/old.py")]
    modules = {"pkg/flash_mla.py": "pkg.flash_mla", "pkg/mla.py": "pkg.mla",
               "tools/old.py": "tools.old"}
    unparsed = {"tools/old.py": b"from pkg import flash_mla\nprint(mla_table)\n"}
    # tools/old.py (index 2) must go with pkg/flash_mla.py (index 0), not with pkg/mla.py
    assert _unparsed_uses(deletions, unparsed, modules) == {0: {2}}
