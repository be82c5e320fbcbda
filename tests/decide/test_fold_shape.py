"""Guard folds reused in a tree of another shape (``analyzer.decide.fold_reuse``) on
``sample_repos/fold_shape``: a file added or removed folds again only the modules whose
folding read what it changes -- the reader of an import that now names a module, not the
module that calls its probe itself -- with the folds a whole pass makes. Which modules those
are is written from the sample's README."""

from __future__ import annotations

import hashlib
from pathlib import Path

from analyzer.decide import guards
from analyzer.decide.fold_reuse import FoldMemory, TreeVersion
from analyzer.decide.guards_eval import GuardContext
from tests.helpers import module_index, stored

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "fold_shape"
FILES = {p.relative_to(SAMPLE).as_posix(): p.read_text(encoding="utf-8")
         for p in sorted(SAMPLE.rglob("*.py"))}
# the module the tests add: ``from app.conf import flags`` names it once it is there
FLAGS = {"app/conf/flags.py": "from app.platform import is_npu\n\nUSE_NPU = is_npu()\n"}
WITH_FLAGS = {**FILES, **FLAGS}
BRANCHED = ["app.direct", "app.plain", "app.reader"]  # (every module with a branch)
CTX = GuardContext({"app.platform.is_npu": False})


def _version(files: dict[str, str], shape_known: bool = True) -> TreeVersion:
    """The tree's shape (its modules' names, paths and package flags) and each module's
    bytes, as the scan keys them (``shape_known``: with the shape itself, as a scan has it)."""
    layout = []
    for path in sorted(files):
        name = path[:-3].replace("/", ".")
        is_package = name.endswith(".__init__")
        layout.append((name.removesuffix(".__init__"), path, is_package))
    layout.sort()
    return TreeVersion(
        hashlib.sha256(repr(layout).encode()).hexdigest(),
        {name: hashlib.sha256(files[path].encode()).hexdigest() for name, path, _ in layout},
        tuple(layout) if shape_known else ())


def _lines(regions: dict[str, list[guards.DeadRegion]]) -> dict[str, list[tuple[int, int]]]:
    return {m: [(r.start_line, r.end_line) for r in rs] for m, rs in regions.items()}


def _whole(tmp: Path, files: dict[str, str]) -> dict[str, list[tuple[int, int]]]:
    """The folds of a whole pass over ``files``, from nothing."""
    return _lines(guards.fold_contexts(module_index(tmp, files), [CTX])[0])


def _refolded(tmp: Path, folded: list[str], before: dict[str, str], after: dict[str, str]
              ) -> dict[str, list[tuple[int, int]]]:
    """The folds of ``after`` from the record of a fold of ``before`` in the same memory (the
    modules folded again are left in ``folded``)."""
    memory = FoldMemory()
    guards.fold_contexts(module_index(tmp / "before", before), [CTX], memory=memory,
                         version=_version(before))
    folded.clear()
    return _lines(guards.fold_contexts(module_index(tmp / "after", after), [CTX],
                                       memory=memory, version=_version(after))[0])


def test_the_sample_folds_as_its_readme_says(tmp_path: Path) -> None:
    before = _whole(tmp_path / "before", FILES)
    after = _whole(tmp_path / "after", WITH_FLAGS)
    # `flags` is the package's assignment: the reader's condition is not known
    assert "app.reader" not in before
    # ... and once app/conf/flags.py is there, its arm is dead: the `if` line, its arm and
    # the `else:` line go (lines 3-5), the else arm's body stays
    assert after["app.reader"] == [(3, 5)]
    # the probe's own caller folds alike in both trees
    assert before["app.direct"] == after["app.direct"] == [(3, 4)]


def test_a_module_added_folds_again_only_the_reader_it_answers_otherwise(
        tmp_path: Path, folded: list[str]) -> None:
    reused = _refolded(tmp_path, folded, FILES, WITH_FLAGS)
    assert folded == ["app.reader"]
    assert reused == _whole(tmp_path / "whole", WITH_FLAGS)


def test_a_module_removed_folds_again_what_read_it(tmp_path: Path,
                                                   folded: list[str]) -> None:
    # (a pruned tree: the plan deleted app/conf/flags.py)
    reused = _refolded(tmp_path, folded, WITH_FLAGS, FILES)
    assert folded == ["app.reader"]
    assert reused == _whole(tmp_path / "whole", FILES)


def test_a_module_nothing_read_folds_nothing_again(tmp_path: Path, folded: list[str]) -> None:
    grown = {**FILES, "app/extra.py": "X = 1\n"}
    reused = _refolded(tmp_path, folded, FILES, grown)
    assert folded == []
    assert reused == _whole(tmp_path / "whole", grown)


def test_a_module_edited_in_a_tree_of_another_shape_folds_again(
        tmp_path: Path, folded: list[str]) -> None:
    # the plan's edit of a module (its branch unwrapped) beside the deleted file
    edited = {**FILES, "app/plain.py": "def first(items):\n    return items[0]\n"}
    reused = _refolded(tmp_path, folded, WITH_FLAGS, edited)
    assert folded == ["app.reader"]  # (plain.py has no branch left)
    assert reused == _whole(tmp_path / "whole", edited)


def test_a_tree_whose_shape_is_not_known_folds_every_module(
        tmp_path: Path, folded: list[str]) -> None:
    memory = FoldMemory()
    guards.fold_contexts(module_index(tmp_path / "before", FILES), [CTX], memory=memory,
                         version=_version(FILES, shape_known=False))
    folded.clear()
    guards.fold_contexts(module_index(tmp_path / "after", WITH_FLAGS), [CTX], memory=memory,
                         version=_version(WITH_FLAGS))
    assert folded == BRANCHED


def test_a_pruned_tree_starts_from_the_last_folds_of_the_tree_it_was_pruned_from(
        tmp_path: Path, folded: list[str]) -> None:
    version = _version(FILES)
    for cache in (tmp_path / "cache", tmp_path / "cache2"):
        # the scan of the tree (its slot "tree"), whose folds the store keeps
        stored(cache, guards.fold_contexts, module_index(tmp_path / "tree", WITH_FLAGS),
               [CTX], "key of the tree", FoldMemory(slot="tree"), _version(WITH_FLAGS))
    # the gate's copy: its own slot holds nothing yet, its origin's last folds serve
    folded.clear()
    reused = stored(tmp_path / "cache", guards.fold_contexts,
                    module_index(tmp_path / "copy", FILES), [CTX], "key of the copy",
                    FoldMemory(slot="copy", starts=("copy", "tree")), version)[0]
    assert folded == ["app.reader"]
    assert _lines(reused) == _whole(tmp_path / "whole", FILES)
    # a tree of that shape that starts from no other slot folds every module
    folded.clear()
    stored(tmp_path / "cache2", guards.fold_contexts, module_index(tmp_path / "other", FILES),
           [CTX], "key of the other", FoldMemory(slot="other"), version)
    assert folded == BRANCHED


def test_a_pruned_tree_starts_from_the_rounds_first_context_not_the_last_one_folded(
        tmp_path: Path, folded: list[str]) -> None:
    cache = tmp_path / "cache"
    memory = FoldMemory(slot="tree")
    tree = module_index(tmp_path / "tree", WITH_FLAGS)
    # the rounds' own context first, then a plan under another drop (the probe answers True)
    stored(cache, guards.fold_contexts, tree, [CTX], "key of the tree", memory,
           _version(WITH_FLAGS))
    npu = GuardContext({"app.platform.is_npu": True})
    stored(cache, guards.fold_contexts, tree, [npu], "key of the tree", memory,
           _version(WITH_FLAGS))
    # the copy's context: the rounds' own with a constant no module reads
    ctx = GuardContext({**CTX.constants, "app.platform.is_rocm": False})
    folded.clear()
    reused = stored(cache, guards.fold_contexts, module_index(tmp_path / "copy", FILES), [ctx],
                    "key of the copy", FoldMemory(slot="copy", starts=("copy", "tree")),
                    _version(FILES))[0]
    # from the first context's record: only what read the removed module folds again (from
    # the last one's, the probe's own caller would too)
    assert folded == ["app.reader"]
    assert _lines(reused) == _lines(guards.fold_contexts(
        module_index(tmp_path / "whole", FILES), [ctx])[0])
