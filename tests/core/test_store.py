"""Query core, the one store (``analyzer/core/store.py``): where entries live, that a damaged
one is a miss, that a read marks it used, and the one eviction policy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analyzer.core import store as core_store
from analyzer.core.store import Query, Store, cap_from_environment, key_of, tree_key

ONE = Query("test-one", code=("analyzer.model",))
TWO = Query("test-two", code=("analyzer.util.words",))


def test_an_entry_lives_under_its_query_and_version(tmp_path: Path) -> None:
    store = Store(tmp_path)
    key = key_of("a", 1)
    store.put(ONE, key, {"x": 1})
    assert store.get(ONE, key) == {"x": 1}
    assert store.path(ONE, key) == tmp_path / "store" / "test-one" / ONE.version / key[:2] \
        / key[2:]
    assert store.get(TWO, key) is None  # another query's answers are apart


def test_a_damaged_entry_is_a_miss(tmp_path: Path) -> None:
    store = Store(tmp_path)
    key = key_of("b")
    store.put(ONE, key, [1, 2, 3])
    path = store.path(ONE, key)
    path.write_bytes(path.read_bytes()[:-3])
    assert store.get(ONE, key) is None
    store.put_bytes(ONE, key, b"not a pickle")
    assert store.get(ONE, key) is None  # checks out, does not unpickle: a miss too
    assert store.get_bytes(ONE, key) == b"not a pickle"


def test_keyed_entries_and_their_companions(tmp_path: Path) -> None:
    store = Store(tmp_path)
    slot = tree_key(tmp_path / "tree")
    store.put_keyed(ONE, slot, "head", "value")
    store.put_keyed(ONE, slot, "head2", "changes", suffix=".changes")
    assert store.get_keyed(ONE, slot, lambda h: h == "head") == ("head", "value")
    assert store.get_keyed(ONE, slot, lambda h: h == "other") is None
    assert store.get_keyed(ONE, slot, lambda h: True, suffix=".changes") == ("head2", "changes")
    store.remove(ONE, slot, suffix=".changes")
    assert store.get_keyed(ONE, slot, lambda h: True, suffix=".changes") is None
    assert store.get_keyed(ONE, slot, lambda h: True) == ("head", "value")


def _aged(store: Store, query: Query, name: str, age: int, size: int = 1000) -> Path:
    key = key_of(name)
    store.put_bytes(query, key, b"x" * size)
    path = store.path(query, key)
    os.utime(path, (1_000_000 + age, 1_000_000 + age))
    return path


def test_a_read_marks_the_entry_used(tmp_path: Path) -> None:
    store = Store(tmp_path)
    path = _aged(store, ONE, "old", 0)
    before = path.stat().st_mtime
    assert store.get_bytes(ONE, key_of("old")) is not None
    assert path.stat().st_mtime > before


def test_eviction_removes_the_least_recently_used_down_to_the_cap(tmp_path: Path) -> None:
    store = Store(tmp_path)
    paths = [_aged(store, ONE, f"e{i}", i) for i in range(10)]  # e0 the least recent
    one = paths[0].stat().st_size
    assert store.evict(cap_bytes=10 * one) == 0  # within the cap: nothing goes
    # over a cap of 5 entries: down to nine tenths of it (4 entries), oldest first
    assert store.evict(cap_bytes=5 * one) == 6
    assert [p.exists() for p in paths] == [False] * 6 + [True] * 4
    # the shards left empty go too; the version folder holds the rest
    assert all(p.parent.exists() for p in paths[6:])
    assert not any(p.parent.exists() for p in paths[:6] if p.parent not in
                   {q.parent for q in paths[6:]})


def test_entries_of_another_version_go_first(tmp_path: Path) -> None:
    store = Store(tmp_path)
    recent_stale = tmp_path / "store" / "test-one" / "0123456789abcdef" / "ab" / "cd"
    recent_stale.parent.mkdir(parents=True)
    recent_stale.write_bytes(b"x" * 1000)  # written now: the most recent of all
    paths = [_aged(store, ONE, f"e{i}", i) for i in range(3)]
    kept = sum(p.stat().st_size for p in paths)
    # over the cap; once the stale entry is gone, below nine tenths of it
    assert store.evict(cap_bytes=kept * 10 // 9 + 10) == 1
    assert not recent_stale.exists() and all(p.exists() for p in paths)
    assert not recent_stale.parent.parent.exists()  # the stale version's folder, emptied


@pytest.mark.parametrize(("value", "cap"), [
    (None, 2048 * 1_000_000), ("", 2048 * 1_000_000), ("10", 10_000_000),
    ("lots", 2048 * 1_000_000), ("-5", 0)])
def test_the_cap_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch,
                                            value: str | None, cap: int) -> None:
    if value is None:
        monkeypatch.delenv(core_store.CAP_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(core_store.CAP_VARIABLE, value)
    assert cap_from_environment() == cap


def test_two_queries_of_one_name_are_an_error() -> None:
    assert Query("test-one", code=("analyzer.model",)) == ONE  # (the same: a re-import)
    with pytest.raises(ValueError, match="two queries named"):
        Query("test-one", code=("analyzer.nodes",))


def test_eviction_removes_the_caches_kept_before_the_store(tmp_path: Path) -> None:
    store = Store(tmp_path)
    kept = _aged(store, ONE, "e", 0)
    for folder in ("facts/0123456789abcdef/ab", "results", "edges", "check"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "old").write_bytes(b"an older depgraph's entry")
    assert store.evict() == 0  # within the cap: no entry of the store goes
    assert kept.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]
