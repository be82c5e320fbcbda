"""Whole-scan result cache and the digest index: an unchanged re-scan reuses the rendered
outputs; any change of a file, an option or the cache's own integrity recomputes them."""

from __future__ import annotations

import os
import time

from click.testing import CliRunner

from analyzer.cli.main import main
from analyzer.discover.digests import DIGESTS, RACY_NS, DigestIndex
from analyzer.model import SourceFile
from tests.helpers import store_entries, write_tree

TREE = {
    "python/app/__init__.py": "",
    "python/app/main.py": "from app.util import helper\n\n\ndef run():\n    return helper()\n",
    "python/app/util.py": "def helper():\n    return 1\n\n\ndef unused():\n    return 2\n",
    "python/pyproject.toml": '[project]\nname = "app"\n[project.scripts]\napp = "app.main:run"\n',
    # the roots a scan needs (a scan without any is an error): the config names them
    "depgraph.toml": 'roots = ["app.main"]\n',
}
REUSED = "results reused"


def scan(repo, out, cache, *extra: str):
    result = CliRunner().invoke(main, ["scan", str(repo), "--out", str(out), "--cache-dir",
                                       str(cache), *extra])
    assert result.exit_code == 0, result.output
    return result.output


def test_unchanged_rescan_reuses_outputs(tmp_path):
    repo = write_tree(tmp_path / "repo", TREE)
    first = scan(repo, tmp_path / "o1", tmp_path / "c")
    assert REUSED not in first
    second = scan(repo, tmp_path / "o2", tmp_path / "c")
    assert REUSED in second
    for name in ("manifest.json", "report.html"):
        assert (tmp_path / "o1" / name).read_bytes() == (tmp_path / "o2" / name).read_bytes()
    # the summary line is the same apart from the time
    def removable(out: str) -> str:
        return next(line for line in out.splitlines() if line.startswith("removable:"))

    assert removable(first).split(" (")[0] == removable(second).split(" (")[0]


def test_edit_option_and_format_changes_recompute(tmp_path):
    repo = write_tree(tmp_path / "repo", TREE)
    cache = tmp_path / "c"
    scan(repo, tmp_path / "o", cache)
    util = repo / "python/app/util.py"
    util.write_text(util.read_text() + "\n\ndef also_unused():\n    return 3\n")
    out = scan(repo, tmp_path / "o", cache)
    assert REUSED not in out
    # util.py's two dead functions (5-6 and 9-10): the edit is in the recomputed manifest
    assert "removable: 0 files, 4 lines in 2 deletions" in out
    assert REUSED not in scan(repo, tmp_path / "o", cache, "--no-default-roots",
                              "--roots", "app.main")
    assert REUSED in scan(repo, tmp_path / "o", cache, "--no-default-roots",
                          "--roots", "app.main")
    assert REUSED not in scan(repo, tmp_path / "o", cache, "--format", "md")
    assert REUSED not in scan(repo, tmp_path / "o", cache, "--no-result-cache")


def test_corrupted_entry_is_recomputed(tmp_path):
    repo = write_tree(tmp_path / "repo", TREE)
    cache = tmp_path / "c"
    scan(repo, tmp_path / "o", cache)
    (entry,) = store_entries(cache, "results")
    entry.write_bytes(entry.read_bytes()[:-10])  # truncated: digest no longer matches
    assert REUSED not in scan(repo, tmp_path / "o", cache)
    assert REUSED in scan(repo, tmp_path / "o", cache)


def test_no_cache_writes_no_cache(tmp_path):
    repo = write_tree(tmp_path / "repo", TREE)
    scan(repo, tmp_path / "o", tmp_path / "c", "--no-cache")
    assert not (tmp_path / "c").exists()


def _source(path, rel: str) -> SourceFile:
    st = os.stat(path)
    return SourceFile(rel, "python", st.st_size,
                      (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))


def test_digest_index_trusts_only_unchanged_non_racy_files(tmp_path):
    f = tmp_path / "a.py"
    f.write_text("x = 1\n")
    old = time.time_ns() - 10 * RACY_NS
    os.utime(f, ns=(old, old))
    index = DigestIndex(tmp_path / "cache", tmp_path)
    index.record(_source(f, "a.py"), "digest-1", time.time_ns())
    index.save({"a.py"})
    again = DigestIndex(tmp_path / "cache", tmp_path)
    assert again.known(_source(f, "a.py")) == "digest-1"
    # same size, mtime put back: the ctime still tells the change
    f.write_text("x = 2\n")
    os.utime(f, ns=(old, old))
    assert again.known(_source(f, "a.py")) is None
    # hashed right after a modification: racy, read again
    racy = DigestIndex(tmp_path / "cache2", tmp_path)
    src = _source(f, "a.py")
    racy.record(src, "digest-2", src.stat_key[1] + RACY_NS // 2)
    assert racy.known(src) is None


def test_digest_index_survives_a_corrupt_file(tmp_path):
    index = DigestIndex(tmp_path / "cache", tmp_path)
    path = index.store.path(DIGESTS, index.key)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"garbage\nnot a pickle")
    assert DigestIndex(tmp_path / "cache", tmp_path).entries == {}


def test_reused_results_keep_exit_codes_and_strictness(tmp_path):
    repo = write_tree(tmp_path / "repo", TREE)
    args = ["scan", str(repo), "--out", str(tmp_path / "o"), "--cache-dir", str(tmp_path / "c"),
            "--fail-on-removable"]
    first = CliRunner().invoke(main, args)
    second = CliRunner().invoke(main, args)
    assert first.exit_code == second.exit_code == 1  # util.unused is removable both times
    assert REUSED in second.output
    # a stale profile entry fails --strict whether the result is computed or reused
    (repo / "depgraph.toml").write_text(
        'name = "t"\nroots = ["app.main"]\n[[never_delete]]\npath = "nothing/here.py"\n'
        'reason = "gone"\n')
    strict = ["scan", str(repo), "--out", str(tmp_path / "o"), "--cache-dir",
              str(tmp_path / "c"), "--strict"]
    assert CliRunner().invoke(main, strict).exit_code == 6
    again = CliRunner().invoke(main, strict)
    assert again.exit_code == 6 and "stale profile entry" in again.output


def test_a_cache_that_cannot_be_written_only_costs_time(tmp_path):
    repo = write_tree(tmp_path / "repo", TREE)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    first = scan(repo, tmp_path / "o", blocker)
    assert REUSED not in scan(repo, tmp_path / "o", blocker)
    assert (tmp_path / "o" / "manifest.json").exists() and "Python files" in first
    assert blocker.read_text() == "a file where the cache folder should be"


def test_a_scan_applies_the_stores_eviction_policy(tmp_path, monkeypatch):
    repo = write_tree(tmp_path / "repo", TREE)
    cache = tmp_path / "c"
    scan(repo, tmp_path / "o", cache)
    # within the default cap, all stay: the facts of the tree's 3 Python files and of
    # util.py as the gate pruned it (without `unused`), and the result
    assert len(store_entries(cache, "facts")) == 4 and store_entries(cache, "results")
    edited = repo / "python/app/main.py"
    edited.write_text(edited.read_text() + "# edited\n")
    monkeypatch.setenv("DEPGRAPH_CACHE_MB", "0")  # a cap of nothing: every entry goes
    assert REUSED not in scan(repo, tmp_path / "o", cache)
    assert not list((cache / "store").rglob("*/*/*/*"))
    monkeypatch.delenv("DEPGRAPH_CACHE_MB")
    assert REUSED not in scan(repo, tmp_path / "o", cache)  # (nothing was left to reuse)
    assert REUSED in scan(repo, tmp_path / "o", cache)
