"""Pipeline, the gate and the store: the gate's copy of the tree is a new folder each time,
yet the store keeps its per-tree entries (file digests, lints, each module's edges) under one
name of the original's, so the next gate of the tree finds them; the edited files' lints and
the apply's diffs are queries of the store by content, answered on the next gate."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from analyzer.codemod.apply import FileChange, _diffs, unified_diff
from analyzer.core.store import Store, tree_key
from analyzer.discover.digests import DIGESTS
from analyzer.extract.cache import FactsCache
from analyzer.pipeline.analyze import RunSettings
from analyzer.pipeline.scan import run_scan
from analyzer.verify.edited import EDITED, EditedFile, read_now
from tests.helpers import SAMPLES, store_entries, stored, write_tree


def test_the_gates_copy_keeps_one_slot(tmp_path: Path) -> None:
    # value_selection drops a feature: the plan deletes and edits files, so the gate
    # verifies a copy
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "value_selection", tree)
    cache = tmp_path / "cache"
    first = run_scan(tree, [], cache_dir=cache)
    assert first.plan.deletions and first.verified is not None  # (the gate ran)
    # two trees were scanned: the sample and the gate's copy of it, each one digest index
    store = Store(cache)
    copy_slot = tree_key(f"{tree.resolve()}\0the gate's copy")
    assert store.path(DIGESTS, copy_slot).is_file()
    assert store.path(DIGESTS, tree_key(str(tree.resolve()))).is_file()
    kept = {q: store_entries(cache, q) for q in ("digests", "check", "edges")}
    assert len(kept["digests"]) == 2
    second = run_scan(tree, [], cache_dir=cache)
    assert second.plan.deletions == first.plan.deletions
    # the second gate's copy, in another folder, used the same slots: no entry was added
    assert {q: store_entries(cache, q) for q in kept} == kept


def test_verify_before_uses_the_gates_slot(tmp_path: Path) -> None:
    # the user applies the manifest in a folder of their own and verifies it there: the
    # scan of that tree is the gate's copy's scan again (same options, same pruned bytes),
    # so it is kept under the gate's slot and adds no per-tree entry
    import json

    from analyzer.codemod.apply import run_apply
    from analyzer.config.options import ScanOptions
    from analyzer.pipeline.verify import manifest_of, verify_scan

    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "value_selection", tree)
    cache = tmp_path / "cache"
    result = run_scan(tree, [], cache_dir=cache)
    assert result.plan.deletions
    manifest = manifest_of(result)
    written = tmp_path / "manifest.json"
    written.write_text(json.dumps(manifest))
    pruned = tmp_path / "mine"
    shutil.copytree(tree, pruned)
    run_apply(written, pruned, write=True, cache_dir=cache)
    kept = {q: store_entries(cache, q) for q in ("digests", "check", "edges")}
    settings = RunSettings(cache_dir=cache)
    assert verify_scan(pruned, ScanOptions(), settings, before=manifest).problems == []
    assert {q: store_entries(cache, q) for q in kept} == kept
    # without the manifest the tree is just a tree: its own slot, a third digest index
    assert verify_scan(pruned, ScanOptions(), settings).problems == []
    assert len(store_entries(cache, "digests")) == len(kept["digests"]) + 1
    assert Store(cache).path(DIGESTS, tree_key(str(pruned.resolve()))).is_file()


def test_edited_files_are_answered_from_the_store(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "t", {"pkg/__init__.py": "", "pkg/a.py": "print(y)\n"})
    cache = tmp_path / "cache"
    files = [(root, "pkg/a.py")]
    first = stored(cache, read_now, files, 1)["pkg/a.py"]
    assert first.lint is not None and dict(first.lint.undefined) == {"y": 1}
    assert first.compile_error is None
    # what the store holds for these bytes is the answer: a planted one shows it is read
    digest = hashlib.sha256(b"print(y)\n").hexdigest()
    facts = FactsCache(cache)
    assert isinstance(facts.get("pkg/a.py", digest, "verify-edited", EDITED), EditedFile)
    facts.put("pkg/a.py", digest, "verify-edited", EditedFile(None, (7, "planted")), EDITED)
    assert stored(cache, read_now, files, 1)["pkg/a.py"].compile_error == (7, "planted")
    # other bytes are another key: computed
    (root / "pkg" / "a.py").write_text("print(z)\n")
    again = stored(cache, read_now, files, 1)["pkg/a.py"]
    assert again.lint is not None and dict(again.lint.undefined) == {"z": 1}
    # outside a session (no store) nothing is read back
    (root / "pkg" / "a.py").write_text("print(y)\n")
    assert read_now(files, 1)["pkg/a.py"].compile_error is None


def _change(i: int, new: bytes | None) -> FileChange:
    return FileChange(f"pkg/m{i}.py", b"".join(b"line %d\n" % n for n in range(30)), new,
                      [], "")


def test_diffs_are_answered_from_the_store(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    # twenty changes: made in worker processes (a serial diff of each is the reference)
    changes = [_change(i, None if i % 3 == 0 else b"line 1\nline %d\n" % i)
               for i in range(20)]
    made = stored(cache, _diffs, changes)
    assert made == [unified_diff(c) for c in changes]
    assert made[0].startswith("--- a/pkg/m0.py\n+++ /dev/null\n@@ -1,30 +0,0 @@\n-line 0\n")
    assert len(store_entries(cache, "diffs")) == 20
    # read back: a planted entry is the answer for the same path and contents
    for entry in store_entries(cache, "diffs"):
        entry.unlink()
    stored(cache, _diffs, changes[:1])
    (planted,) = store_entries(cache, "diffs")
    Store(cache).put(
        _query(), planted.parent.name + planted.name, "planted")
    assert stored(cache, _diffs, changes[:2]) == ["planted", unified_diff(changes[1])]
    # another content of the same path: another key
    other = _change(0, b"line 0\n")
    assert stored(cache, _diffs, [other]) == [unified_diff(other)]


def _query():  # type: ignore[no-untyped-def]
    from analyzer.codemod.apply import DIFFS

    return DIFFS


def test_verify_resumes_where_the_gates_rounds_settled(tmp_path: Path, monkeypatch) -> None:
    # the gate's verify of its copy keeps where its rounds settled (by a hash of the inputs,
    # not of the folder: the profile lies in the tree, so it counts by its path there); the
    # user's verify of the same pruned tree elsewhere starts there and runs one round, with
    # the answer of rounds run from nothing
    import json

    from analyzer.codemod.apply import run_apply
    from analyzer.config.options import ScanOptions
    from analyzer.pipeline.rounds import Rounds
    from analyzer.pipeline.verify import manifest_of, verify_scan

    # mini_sglang's pruned tree settles in four rounds (code the plan keeps that nothing
    # live uses becomes a root, then what that keeps is checked)
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "mini_sglang", tree)
    cache = tmp_path / "cache"
    manifest = manifest_of(run_scan(tree, [], cache_dir=cache))
    kept = store_entries(cache, "settling")  # the scan's rounds', its plans', the gate's copy's
    assert kept
    written = tmp_path / "manifest.json"
    written.write_text(json.dumps(manifest))
    pruned = tmp_path / "mine"
    shutil.copytree(tree, pruned)
    run_apply(written, pruned, write=True)
    rounds: list[int] = []
    real = Rounds._round

    def counted(self: Rounds, state: object) -> object:
        rounds.append(1)
        return real(self, state)  # type: ignore[arg-type]

    monkeypatch.setattr(Rounds, "_round", counted)
    scratch = verify_scan(pruned, ScanOptions(), before=manifest)  # no cache: from nothing
    from_nothing = len(rounds)
    assert from_nothing == 4
    rounds.clear()
    resumed = verify_scan(pruned, ScanOptions(), RunSettings(cache_dir=cache),
                          before=manifest)
    assert len(rounds) == 1
    assert resumed.problems == scratch.problems == []
    for name in ("deletions", "kept"):
        assert getattr(resumed.result.plan, name) == getattr(scratch.result.plan, name)
    assert resumed.result.conflicts == scratch.result.conflicts
    live = {n for n in scratch.result.graph.nodes if scratch.result.liveness.is_live(n)}
    assert {n for n in resumed.result.graph.nodes if resumed.result.liveness.is_live(n)} == live
    # the same key: no second entry; another profile text is another key (from nothing)
    assert store_entries(cache, "settling") == kept
    (pruned / "depgraph.toml").write_text((pruned / "depgraph.toml").read_text() + "\n")
    rounds.clear()
    verify_scan(pruned, ScanOptions(), RunSettings(cache_dir=cache), before=manifest)
    assert len(rounds) == from_nothing
    assert len(store_entries(cache, "settling")) == len(kept) + 1
