"""The seeds' byte searches kept by digest (``analyzer.extract.needle_cache``): a stored answer
is reused only for the same bytes and the same needles, and an edited file is searched again.

Expectations from reading sample_repos/demand_extract (its README: ``lazy/orphan.py`` is only
counted, nothing imports it; a file holding ``__main__`` is a script and parsed)."""

from __future__ import annotations

import shutil
from pathlib import Path

from analyzer.extract.needle_cache import NEEDLE, SCRIPT, NeedleCache
from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES, stored


def test_answers_are_reused_by_digest_for_the_same_needles_only(tmp_path: Path) -> None:
    def first_scan() -> None:
        cache = NeedleCache(tmp_path / "tree")
        first = cache.search([b"fa3_fwd"])
        assert first.flags(b"x = fa3_fwd()\n", "d1") == NEEDLE
        assert first.flags(b"if __name__ == '__main__':\n", "d2") == SCRIPT
        assert first.flags(None, "") == 0  # an unreadable file holds nothing
        cache.save(first)

    def search(needle: bytes):  # (a later scan of the same tree)
        return stored(tmp_path / "cache",
                      lambda: NeedleCache(tmp_path / "tree").search([needle]))

    stored(tmp_path / "cache", first_scan)

    again = search(b"fa3_fwd")
    # the stored answer stands for the digest: these bytes are not searched again
    assert again.flags(b"", "d1") == NEEDLE
    # another set of needles: every file is searched again
    other = search(b"flashmla")
    assert other.flags(b"", "d1") == 0

    # a corrupted file is a miss, never trusted
    entry = next(p for p in (tmp_path / "cache").rglob("*") if p.is_file())
    entry.write_bytes(entry.read_bytes()[:-3])
    broken = search(b"fa3_fwd")
    assert broken.flags(b"", "d1") == 0
    # outside a session nothing is stored or read: every file is searched
    assert NeedleCache(tmp_path / "tree").search([b"flashmla"]).stored == {}


def test_an_edited_file_is_searched_again(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    shutil.copytree(SAMPLES / "demand_extract", tree)
    cache = tmp_path / "cache"
    cold = run_scan(tree, ["llama"], cache_dir=cache)
    assert "lazy/orphan.py" in cold.counted
    assert run_scan(tree, ["llama"], cache_dir=cache).counted == cold.counted
    # the orphan becomes a script: it is parsed, whatever the last scan found in its old bytes
    (tree / "lazy" / "orphan.py").write_text(
        "def unused():\n    return 0\n\n\nif __name__ == '__main__':\n    unused()\n")
    edited = run_scan(tree, ["llama"], cache_dir=cache)
    assert "lazy/orphan.py" not in edited.counted
    assert edited.counted == cold.counted - {"lazy/orphan.py"}
