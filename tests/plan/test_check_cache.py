"""The check's file lints and simulations persist between scans, keyed by the file's bytes
and edits: an unchanged file with an unchanged plan is not linted again, a changed one is."""

from __future__ import annotations

from analyzer.model import Deletion
from analyzer.plan.check_cache import CheckCache
from tests.helpers import store_entries

SOURCE = b"import os\nfrom pkg.a import helper\n\n\ndef run():\n    return helper(os.sep)\n"
# deleting line 2 leaves `helper` undefined in run()
EDITS = (Deletion("delete_range", "pkg/m.py", "", 1, "test", start_line=2, end_line=2),)


def test_a_second_scan_reads_what_the_first_linted(tmp_path):
    first = CheckCache(tmp_path, tmp_path / "tree")
    sim = first.simulation("pkg/m.py", {"pkg/m.py": SOURCE}, EDITS)
    assert sim.after.undefined["helper"] == 1 and not sim.before.undefined
    assert (first.hits, first.misses) == (0, 2)  # the file as it is, then the edited file
    first.save()

    second = CheckCache(tmp_path, tmp_path / "tree")
    again = second.simulation("pkg/m.py", {"pkg/m.py": SOURCE}, EDITS)
    assert (second.hits, second.misses) == (2, 0)
    assert again.after == sim.after
    assert again.binders["helper"] == [EDITS[0]]
    assert second.originals()["pkg/m.py"] is not None


def test_changed_bytes_or_edits_or_tree_are_misses(tmp_path):
    first = CheckCache(tmp_path, tmp_path / "tree")
    first.simulation("pkg/m.py", {"pkg/m.py": SOURCE}, EDITS)
    first.save()

    edited = CheckCache(tmp_path, tmp_path / "tree")
    sim = edited.simulation("pkg/m.py", {"pkg/m.py": SOURCE + b"# more\n"}, EDITS)
    assert (edited.hits, edited.misses) == (0, 2)
    assert sim.after.undefined["helper"] == 1

    other_edits = CheckCache(tmp_path, tmp_path / "tree")
    sim = other_edits.simulation("pkg/m.py", {"pkg/m.py": SOURCE}, ())
    assert (other_edits.hits, other_edits.misses) == (1, 1)  # the original is known
    assert sim.after is not None and not sim.after.undefined

    other_tree = CheckCache(tmp_path, tmp_path / "elsewhere")
    other_tree.simulation("pkg/m.py", {"pkg/m.py": SOURCE}, EDITS)
    assert other_tree.hits == 0


def test_a_corrupted_cache_file_is_a_miss(tmp_path):
    first = CheckCache(tmp_path, tmp_path / "tree")
    first.simulation("pkg/m.py", {"pkg/m.py": SOURCE}, EDITS)
    first.save()
    for f in store_entries(tmp_path, "check"):
        f.write_bytes(f.read_bytes()[:-10])
    again = CheckCache(tmp_path, tmp_path / "tree")
    assert again.simulation("pkg/m.py", {"pkg/m.py": SOURCE}, EDITS).after.undefined["helper"] == 1
    assert again.hits == 0


def test_a_file_that_does_not_parse_is_not_simulated(tmp_path):
    cache = CheckCache(tmp_path, tmp_path / "tree")
    sim = cache.simulation("pkg/bad.py", {"pkg/bad.py": b"def (:\n"}, ())
    assert not sim.parsed
    assert cache.originals() == {"pkg/bad.py": None}


def test_prefetched_in_workers_the_check_reads_the_same_simulations(tmp_path):
    # ten files, each with the unused import deleted (line 2: `helper` undefined after) and
    # one that does not parse: computed in two worker processes, answered as one process would
    sources = {f"pkg/m{i}.py": SOURCE + f"X = {i}\n".encode() for i in range(10)}
    sources["pkg/broken.py"] = b"def (:\n"
    edits = {p: (Deletion("delete_range", p, "", 1, "test", start_line=2, end_line=2),)
             for p in sources}
    pooled = CheckCache(tmp_path / "a", tmp_path / "tree", jobs=2)
    pooled.prefetch(edits, sources)
    assert pooled.misses == 2 * len(sources)  # every sim and original was new
    alone = CheckCache(None, None)
    for path in sorted(sources):
        got = pooled.simulation(path, sources, edits[path])
        want = alone.simulation(path, sources, edits[path])
        assert (got.parsed, got.after, got.binders) == (
            want.parsed, want.after, want.binders)
    assert pooled.misses == 2 * len(sources)  # nothing computed again
    m3 = pooled.simulation("pkg/m3.py", sources, edits["pkg/m3.py"])
    assert m3.after.undefined == {"helper": 1}
    assert not pooled.simulation("pkg/broken.py", sources, edits["pkg/broken.py"]).parsed
    assert pooled.originals()["pkg/broken.py"] is None


def test_a_known_simulation_reads_no_bytes(tmp_path):
    """With a scan's SourceBytes, a simulation or lint the cache knows is answered from the
    digest the scan read the file with: the file is not read again (here: it is gone)."""
    import hashlib

    from analyzer.extract.source_bytes import SourceBytes

    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg/m.py").write_bytes(SOURCE)
    sources = SourceBytes(tree, {"pkg/m.py": hashlib.sha256(SOURCE).hexdigest()})
    first = CheckCache(tmp_path, tree)
    first.prefetch({"pkg/m.py": EDITS}, sources)
    first.save()
    (tree / "pkg/m.py").unlink()
    again = CheckCache(tmp_path, tree)
    again.prefetch({"pkg/m.py": EDITS}, SourceBytes(tree, {"pkg/m.py": sources.digest("pkg/m.py")}))
    sim = again.simulation("pkg/m.py", SourceBytes(tree, {"pkg/m.py": sources.digest("pkg/m.py")}),
                           EDITS)
    assert sim.after.undefined["helper"] == 1 and (again.hits, again.misses) == (2, 0)


def test_several_plans_prefetched_at_once_lint_each_original_once(tmp_path, monkeypatch):
    """The shares of a plan are prefetched together: every simulation of every share is
    computed, a file's original is linted once even when two shares edit it differently, and
    the check then reads them as one process would have computed them."""
    import analyzer.plan.check_cache as check_cache

    pools: list[list[tuple[str, int, bool]]] = []
    real_map = check_cache.parallel_map

    def recording_map(fn, items, jobs, size=None):
        pools.append([(path, len(edits), known) for path, _, edits, known, _ in items])
        return real_map(fn, items, jobs, size=size)

    monkeypatch.setattr(check_cache, "parallel_map", recording_map)
    sources = {"pkg/m.py": SOURCE, "pkg/n.py": SOURCE + b"Y = 1\n"}
    line_2 = Deletion("delete_range", "pkg/m.py", "", 1, "test", start_line=2, end_line=2)
    line_1 = Deletion("delete_range", "pkg/m.py", "", 1, "test", start_line=1, end_line=1)
    n_line_7 = Deletion("delete_range", "pkg/n.py", "", 1, "test", start_line=7, end_line=7)
    # share one edits m.py (line 2) and n.py; share two edits m.py otherwise (lines 1 and 2);
    # share three repeats share one's m.py edits
    shares = [{"pkg/m.py": (line_2,), "pkg/n.py": (n_line_7,)},
              {"pkg/m.py": (line_1, line_2)},
              {"pkg/m.py": (line_2,)}]
    cache = CheckCache(None, None, jobs=1)
    cache.prefetch_all(shares, sources)
    # first pool: m.py with its first edits and n.py, both originals linted there; second
    # pool: m.py's other edits, its original known by then; the repeat asks nothing
    assert pools == [[("pkg/m.py", 1, False), ("pkg/n.py", 1, False)],
                     [("pkg/m.py", 2, True)]]
    misses = cache.misses
    both = cache.simulation("pkg/m.py", sources, (line_1, line_2))
    assert cache.misses == misses  # answered from the prefetch
    # without `import os` and `helper`'s import, run() reads two undefined names
    assert both.after.undefined == {"os": 1, "helper": 1}
    alone = CheckCache(None, None).simulation("pkg/m.py", sources, (line_2,))
    assert cache.simulation("pkg/m.py", sources, (line_2,)).after == alone.after


def test_what_a_forked_copy_answered_is_saved_by_the_cache_it_came_from(tmp_path):
    # the share plans' workers hand back what they linted (pipeline/shares.py): the next scan
    # finds it as if it had been linted in the scan's own process
    parent = CheckCache(tmp_path, tmp_path / "tree")
    parent.original("pkg/m.py", {"pkg/m.py": SOURCE})  # known before the fork
    import copy

    worker = copy.deepcopy(parent)  # (what a fork gives the worker)
    worker.mark()
    worker.simulation("pkg/m.py", {"pkg/m.py": SOURCE}, EDITS)
    handed, misses = worker.taken()
    assert misses == 1 and len(handed) == 1  # the simulation only: the original was known
    parent.absorb((handed, misses))
    parent.save()

    later = CheckCache(tmp_path, tmp_path / "tree")
    later.simulation("pkg/m.py", {"pkg/m.py": SOURCE}, EDITS)
    assert (later.hits, later.misses) == (2, 0)


def test_a_pruned_tree_reads_its_origins_lints_until_it_has_its_own(tmp_path):
    first = CheckCache(tmp_path, tmp_path / "tree")
    first.simulation("pkg/m.py", {"pkg/m.py": SOURCE}, EDITS)
    first.save()

    copy = CheckCache(tmp_path, tmp_path / "copy", origin=tmp_path / "tree")
    copy.original("pkg/m.py", {"pkg/m.py": SOURCE})  # the same bytes: the origin's lint
    edited = copy.original("pkg/other.py", {"pkg/other.py": b"x = 1\n"})
    assert (copy.hits, copy.misses) == (1, 1) and edited is not None
    copy.save()
    # the copy's own slot is read (here no origin holds anything)
    again = CheckCache(tmp_path, tmp_path / "copy", origin=tmp_path / "elsewhere")
    again.original("pkg/other.py", {"pkg/other.py": b"x = 1\n"})
    again.original("pkg/m.py", {"pkg/m.py": SOURCE})
    assert (again.hits, again.misses) == (2, 0)
    # without an origin, a tree never scanned finds nothing
    fresh = CheckCache(tmp_path, tmp_path / "fresh")
    fresh.original("pkg/m.py", {"pkg/m.py": SOURCE})
    assert fresh.hits == 0


def test_a_save_with_nothing_new_since_the_last_writes_nothing(tmp_path):
    cache = CheckCache(tmp_path, tmp_path / "tree")
    cache.simulation("pkg/m.py", {"pkg/m.py": SOURCE}, EDITS)
    cache.save()
    (entry,) = store_entries(tmp_path, "check")
    entry.unlink()
    cache.save()  # (saved already: not written again)
    assert store_entries(tmp_path, "check") == []
    cache.original("pkg/other.py", {"pkg/other.py": b"x = 1\n"})
    cache.save()
    assert len(store_entries(tmp_path, "check")) == 1
