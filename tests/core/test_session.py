"""Query core, one command's answers (``analyzer/core/session.py``): inside a session a
shared query's answer is one object for every asker; outside, nothing is held."""

from __future__ import annotations

from pathlib import Path

from analyzer.core.session import MISSING, recall, session
from analyzer.core.store import Query, key_of
from analyzer.extract.cache import FACTS, FactsCache
from analyzer.pipeline.scan import run_scan
from tests.helpers import write_tree

UNSHARED = Query("test-unshared", code=("analyzer.model",))


def _stored(tmp_path: Path) -> FactsCache:
    cache = FactsCache(tmp_path / "cache")
    cache.put("a.py", "d1", "python", ("facts", "of", "a"))
    cache.put("b.py", "d2", "python", {"x": 1}, UNSHARED)
    return cache


def test_inside_a_session_an_answer_is_one_object(tmp_path: Path) -> None:
    cache = _stored(tmp_path)
    with session():
        first = cache.get("a.py", "d1", "python")
        assert first == ("facts", "of", "a")
        assert FactsCache(tmp_path / "cache").get("a.py", "d1", "python") is first
        with session():  # a session inside another is that one
            assert cache.get("a.py", "d1", "python") is first
        # a query that is not shared is loaded anew each time
        assert cache.get("b.py", "d2", "python", UNSHARED) is not \
            cache.get("b.py", "d2", "python", UNSHARED)
    assert recall(FACTS, key_of("python", "a.py", "d1")) is MISSING  # it ended


def test_outside_a_session_nothing_is_held(tmp_path: Path) -> None:
    cache = _stored(tmp_path)
    assert cache.get("a.py", "d1", "python") is not cache.get("a.py", "d1", "python")


def test_facts_put_inside_a_session_are_its_answers(tmp_path: Path) -> None:
    cache = FactsCache(tmp_path / "cache")
    facts = ("fresh",)
    with session():
        cache.put("c.py", "d3", "python", facts)
        assert cache.get("c.py", "d3", "python") is facts


def test_the_gates_scan_takes_the_originals_facts(tmp_path: Path, monkeypatch) -> None:
    """The gate scans the applied copy in the scan's session: of the files the plan leaves
    alone, the store is not read again (util.py is edited: its facts are new)."""
    from analyzer.core import store as core_store

    tree = write_tree(tmp_path / "t", {
        "app/__init__.py": "",
        "app/__main__.py": "from app.main import run\n\nrun()\n",
        "app/main.py": "from app.util import helper\n\n\ndef run():\n    return helper()\n",
        "app/util.py": "def helper():\n    return 1\n\n\ndef unused():\n    return 2\n",
    })
    reads: list[str] = []
    original = core_store.Store.get

    def counted(self: core_store.Store, query: Query, key: str) -> object | None:
        if query is FACTS:
            reads.append(key)
        return original(self, query, key)

    run_scan(tree, [], use_profile=False, cache_dir=tmp_path / "cache")  # facts stored
    monkeypatch.setattr(core_store.Store, "get", counted)
    # (the verdict on the same manifest over the same tree is kept: it is not used here, so
    # that the gate scans its copy again)
    monkeypatch.setattr("analyzer.pipeline.gate.kept_verdict", lambda _key: None)
    result = run_scan(tree, [], use_profile=False, cache_dir=tmp_path / "cache")
    assert {d.symbol for d in result.plan.deletions} == {"app.util:unused"}
    assert result.verified  # the gate ran
    # four files read once each by the scan; the gate's copy: only util.py, as pruned
    assert len(reads) == 5 and len(set(reads)) == 5
