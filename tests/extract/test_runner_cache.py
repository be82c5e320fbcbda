"""Parallel extraction equals single-process extraction; the cache returns the same facts,
survives corruption, and re-extracts only changed files."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

from analyzer.core.session import session
from analyzer.discover.walk import discover
from analyzer.extract.cache import FACTS, FactsCache, stored_facts
from analyzer.extract.runner import ExtractedFile, Progress, ProgressBar, extract_all
from tests.helpers import MINI_SGLANG, store_entries


def _stored(cache: Path, root: Path, files: list[Any], **kw: Any
            ) -> tuple[list[ExtractedFile], FactsCache]:
    """``extract_all`` in a session of its own storing under ``cache`` (one scan), and that
    session's facts cache (its hits and misses)."""
    with session(cache):
        got = extract_all(root, files, **kw)
        facts = stored_facts()
    assert facts is not None
    return got, facts


def test_parallel_equals_single_process():
    found = discover(MINI_SGLANG)
    files = list(found.files) * 3  # enough work for several batches of 64
    single = extract_all(found.root, files, jobs=1)
    parallel = extract_all(found.root, files, jobs=2)
    assert parallel == single


def test_cache_hits_corruption_and_changed_files(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(MINI_SGLANG, tree)
    found = discover(tree)
    files = list(found.files)
    fresh = extract_all(found.root, files)
    got, cache = _stored(tmp_path / "cache", found.root, files)
    assert got == fresh
    assert (cache.hits, cache.misses) == (0, len(files))

    got, warm = _stored(tmp_path / "cache", found.root, files)
    assert got == fresh
    assert (warm.hits, warm.misses) == (len(files), 0)

    # corrupt one cache entry (truncate it): detected, rebuilt, never trusted
    entry = next(p for p in (tmp_path / "cache").rglob("*") if p.is_file())
    entry.write_bytes(entry.read_bytes()[:-10])
    got, again = _stored(tmp_path / "cache", found.root, files)
    assert got == fresh
    assert again.misses == 1

    # change one file: only it is extracted again
    target = tree / "python/minisgl/srt/utils/common.py"
    target.write_text(target.read_text() + "\n# changed\n")
    results, changed = _stored(tmp_path / "cache", found.root, files)
    assert changed.misses == 1
    assert next(r for r in results if r.path.endswith("utils/common.py")).lines \
        == next(r for r in fresh if r.path.endswith("utils/common.py")).lines + 2


def test_facts_live_in_the_store_under_the_extractions_version(tmp_path):
    found = discover(MINI_SGLANG)
    _stored(tmp_path / "cache", found.root, list(found.files)[:3])
    # three files' facts, under the query "facts" and the version of its code
    entries = store_entries(tmp_path / "cache", "facts")
    assert len(entries) == 3
    assert {e.parts[-3] for e in entries} == {FACTS.version}


def test_progress_reports_cached_and_parsed_files(tmp_path):
    found = discover(MINI_SGLANG)
    files = list(found.files)
    seen: list[Progress] = []
    _stored(tmp_path / "c", found.root, files, progress=seen.append)
    assert seen[0] == Progress(len(files), 0, 0, len(files))
    assert seen[-1] == Progress(len(files), 0, len(files), len(files))
    seen.clear()  # all cached: nothing to parse, nothing reported
    _stored(tmp_path / "c", found.root, files, progress=seen.append)
    assert seen == []


def test_progress_bar_stays_quiet_for_a_moment_then_draws():
    out = io.StringIO()
    quick = ProgressBar(out, delay=60)
    quick(Progress(10, 4, 0, 6))
    quick(Progress(10, 4, 6, 6))
    assert out.getvalue() == ""  # done before the delay: nothing drawn
    slow = ProgressBar(out, delay=0)
    slow(Progress(10, 4, 3, 6))
    slow(Progress(10, 4, 6, 6))
    lines = out.getvalue()
    assert "10 files, 4 cached, parsing" in lines and "3/6, " in lines and "s left" in lines
    assert lines.endswith("6/6   \n")  # done: no time left shown
