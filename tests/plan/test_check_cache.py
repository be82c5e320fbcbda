"""The check's file lints and simulations persist between scans, keyed by the file's bytes
and edits: an unchanged file with an unchanged plan is not linted again, a changed one is."""

from __future__ import annotations

from analyzer.model import Deletion
from analyzer.plan.check_cache import CheckCache

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
    for f in (tmp_path / "check").iterdir():
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
