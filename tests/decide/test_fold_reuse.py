"""Guard folds reused from one context under another (``analyzer.decide.fold_reuse``) on
``sample_repos/fold_reuse``: the same folds and tree-wide names as a whole pass, with only the
modules whose reads the new context answers otherwise folded again. Which modules those are
is written from the sample's README: each module reads one kind of declared fact."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest

from analyzer.decide import guards
from analyzer.decide.fold_reuse import FoldMemory, TreeVersion, reusable
from analyzer.decide.guards_eval import GuardContext
from analyzer.extract.cache import FactsCache
from tests.helpers import module_index, stored

SAMPLE = Path(__file__).resolve().parents[2] / "sample_repos" / "fold_reuse"
FILES = {p.relative_to(SAMPLE).as_posix(): p.read_text(encoding="utf-8")
         for p in sorted(SAMPLE.rglob("*.py"))}
# every module with a branch (flags, npu_ops and platform have none)
BRANCHED = ["app.a_early", "app.b_late", "app.backend", "app.cuda_only", "app.model",
            "app.plain"]

BASE = GuardContext({"app.platform.is_npu": False, "app.platform.is_cuda": True,
                     "app.platform.is_sparse": False})
NPU = dataclasses.replace(BASE, constants={**BASE.constants, "app.platform.is_npu": True})
NO_CUDA_FACT = dataclasses.replace(BASE, constants={
    k: v for k, v in BASE.constants.items() if k != "app.platform.is_cuda"})
FA3_DROPPED = dataclasses.replace(BASE, domains=(("attention_backend", frozenset({"fa3"})),))
# the same value from a glob key: folds alike, with another reason
CUDA_BY_GLOB = dataclasses.replace(NO_CUDA_FACT, constants={**NO_CUDA_FACT.constants,
                                                             "app.*.is_cuda": True})
CUDA_OFF_BY_GLOB = dataclasses.replace(NO_CUDA_FACT, constants={**NO_CUDA_FACT.constants,
                                                                 "app.*.is_cuda": False})
# two glob keys matching the probe: the first one written is its value
TWO_GLOBS = dataclasses.replace(NO_CUDA_FACT, constants={
    **NO_CUDA_FACT.constants, "app.*.is_cuda": True, "*.is_cuda": False})
TWO_GLOBS_SWAPPED = dataclasses.replace(NO_CUDA_FACT, constants={
    **NO_CUDA_FACT.constants, "*.is_cuda": False, "app.*.is_cuda": True})
# two glob keys that no name matches both of: their order answers no read otherwise (the NPU
# probe by a glob, the CUDA probe by another)
NO_NPU_FACT = dataclasses.replace(BASE, constants={
    k: v for k, v in BASE.constants.items() if k not in ("app.platform.is_npu",
                                                          "app.platform.is_cuda")})
GLOBS_APART = dataclasses.replace(NO_NPU_FACT, constants={
    **NO_NPU_FACT.constants, "app.platform.is_n*": False, "app.*.is_cuda": True})
GLOBS_APART_SWAPPED = dataclasses.replace(NO_NPU_FACT, constants={
    **NO_NPU_FACT.constants, "app.*.is_cuda": True, "app.platform.is_n*": False})
# two domain patterns that no chain matches both of, in either order: the backend's chain
# falls in the first only
DOMAINS_APART = dataclasses.replace(BASE, domains=(("attention_backend", frozenset({"fa3"})),
                                                   ("*.device", frozenset({"npu"}))))
DOMAINS_APART_SWAPPED = dataclasses.replace(BASE, domains=DOMAINS_APART.domains[::-1])
# two that the backend's chain falls in both of: the first one written is its domain
TWO_DOMAINS = dataclasses.replace(BASE, domains=(
    ("attention_backend", frozenset({"fa3"})), ("*backend", frozenset({"fa3", "triton"}))))
TWO_DOMAINS_SWAPPED = dataclasses.replace(BASE, domains=TWO_DOMAINS.domains[::-1])
# a clause forced dead (what the rounds decide of a branch selecting only dropped keys)
PLAIN_FORCED = dataclasses.replace(BASE, forced={("app.plain", 2): "selects nothing kept"})


def _lines(regions: dict[str, list[guards.DeadRegion]]) -> dict[str, list[tuple[int, int, str]]]:
    return {m: [(r.start_line, r.end_line, r.reason) for r in rs] for m, rs in regions.items()}


@pytest.mark.parametrize(("before", "after", "again"), [
    # the probe USE_NPU comes from: both readers, the second through the memoised name
    (BASE, NPU, ["app.a_early", "app.b_late"]),
    # a constant declared before and not now (a lookup that found it, and will not)
    (BASE, NO_CUDA_FACT, ["app.cuda_only"]),
    # ... and the other way: a lookup that missed, and now finds it
    (NO_CUDA_FACT, BASE, ["app.cuda_only"]),
    # a dropped key of a domain the backend's comparison falls in
    (BASE, FA3_DROPPED, ["app.backend"]),
    (BASE, CUDA_BY_GLOB, ["app.cuda_only"]),
    (CUDA_BY_GLOB, FA3_DROPPED, ["app.backend", "app.cuda_only"]),
    (BASE, PLAIN_FORCED, ["app.plain"]),
    (CUDA_BY_GLOB, CUDA_OFF_BY_GLOB, ["app.cuda_only"]),  # only a glob's value differs
    # the same items in another order: the CUDA probe, which both globs match, takes the
    # other one's value (the NPU and sparse probes are exact keys; no glob matches them)
    (TWO_GLOBS, TWO_GLOBS_SWAPPED, ["app.cuda_only"]),
    # another order of globs no name matches two of: every read answers the same
    (GLOBS_APART, GLOBS_APART_SWAPPED, []),
    # ... while a glob's value that a read takes does change it (the NPU probe's readers)
    (GLOBS_APART, dataclasses.replace(GLOBS_APART, constants={
        **GLOBS_APART.constants, "app.platform.is_n*": True}), ["app.a_early", "app.b_late"]),
    # domains in another order: only a chain two patterns match may fall in another one
    (DOMAINS_APART, DOMAINS_APART_SWAPPED, []),
    (TWO_DOMAINS, TWO_DOMAINS_SWAPPED, ["app.backend"]),
    # a pattern no read's chain matches, added: nothing folds again
    (FA3_DROPPED, DOMAINS_APART, []),
    (BASE, BASE, []),
])
def test_only_the_modules_reading_a_changed_answer_fold_again(
        tmp_path: Path, folded: list[str], before: GuardContext, after: GuardContext,
        again: list[str]) -> None:
    index = module_index(tmp_path / "tree", FILES)
    memory = FoldMemory()
    guards.fold_contexts(index, [before], memory=memory)
    assert folded == BRANCHED  # (a whole pass: nothing to start from)
    assert reusable(memory.records[0], after) == set(BRANCHED) - set(again)
    folded.clear()
    reused = guards.fold_contexts(index, [after], memory=memory)[0]
    assert folded == again
    whole_index = module_index(tmp_path / "whole", FILES)
    assert _lines(reused) == _lines(guards.fold_contexts(whole_index, [after])[0])
    assert index.sought_by_name == whole_index.sought_by_name == {"use_sparse"}


def test_the_folds_under_each_context_are_written_from_the_sample(tmp_path: Path) -> None:
    index = module_index(tmp_path / "tree", FILES)
    memory = FoldMemory()
    base = guards.fold_contexts(index, [BASE], memory=memory)[0]
    npu = guards.fold_contexts(index, [NPU], memory=memory)[0]
    fa3 = guards.fold_contexts(index, [FA3_DROPPED], memory=memory)[0]
    spans = {m: [(r.start_line, r.end_line) for r in rs] for m, rs in base.items()}
    # is_npu False: a_early keeps its else (lines 3-4 go), b_late's import goes; is_cuda
    # True: nothing of cuda_only goes; use_sparse False: the doubled return goes
    assert spans == {"app.a_early": [(3, 5)], "app.b_late": [(3, 4)], "app.model": [(9, 10)]}
    # is_npu True: a_early's else goes, b_late keeps its import
    assert {m: [(r.start_line, r.end_line) for r in rs] for m, rs in npu.items()} == {
        "app.a_early": [(5, 6)], "app.model": [(9, 10)]}
    assert [(r.start_line, r.end_line) for r in fa3["app.backend"]] == [(2, 3)]


def test_a_record_with_a_cycle_cut_is_never_a_base(tmp_path: Path, folded: list[str]) -> None:
    # A and B each other's value: which is asked first decides where the cycle is cut
    files = {**FILES, "app/cycle.py": "from app.platform import is_npu\n\n"
                                      "A = B or is_npu()\nB = A\n\nif A:\n    C = 1\n"}
    index = module_index(tmp_path / "tree", files)
    memory = FoldMemory()
    guards.fold_contexts(index, [BASE], memory=memory)
    assert memory.records[0].tainted
    assert reusable(memory.records[0], NPU) is None
    folded.clear()
    guards.fold_contexts(index, [NPU], memory=memory)
    assert folded == sorted([*BRANCHED, "app.cycle"])


def test_the_last_record_of_a_tree_is_read_from_the_cache(tmp_path: Path,
                                                          folded: list[str]) -> None:
    cache = tmp_path / "cache"
    index = module_index(tmp_path / "tree", FILES)
    version = _version(FILES)
    stored(cache, guards.fold_contexts, index, [BASE], "tree-1", FoldMemory(), version)
    folded.clear()
    # the next scan, with the probe declared otherwise: a memory of its own, the cache's
    # record of the last one
    npu = stored(cache, guards.fold_contexts, index, [NPU], "tree-1", FoldMemory(), version)[0]
    assert folded == ["app.a_early", "app.b_late"]
    assert [(r.start_line, r.end_line) for r in npu["app.a_early"]] == [(5, 6)]
    folded.clear()
    # a tree of another shape: no record to start from
    other = TreeVersion("another shape", version.modules)
    stored(cache, guards.fold_contexts, index, [FA3_DROPPED], "tree-2", FoldMemory(), other)
    assert folded == BRANCHED


def _version(files: dict[str, str]) -> TreeVersion:
    """The tree's shape (its module names) and each module's bytes, as the scan keys them."""
    def name(path: str) -> str:
        return path[:-3].replace("/", ".").removesuffix(".__init__")
    return TreeVersion(
        hashlib.sha256("\0".join(sorted(map(name, files))).encode()).hexdigest(),
        {name(p): hashlib.sha256(text.encode()).hexdigest() for p, text in files.items()})


@pytest.mark.parametrize(("path", "text", "again"), [
    # the module USE_NPU is read from: both readers (the second through the memoised name);
    # model.py's `self.use_sparse` read every module's assignments
    ("app/flags.py", FILES["app/flags.py"] + "\nOTHER = 1\n",
     ["app.a_early", "app.b_late", "app.model"]),
    # the module of the probes: what calls one, and what reads a name whose value came
    # from one (b_late only through the memoised USE_NPU, whose evaluation read it)
    ("app/platform.py", FILES["app/platform.py"] + "\n\ndef is_rocm():\n    return False\n",
     ["app.a_early", "app.b_late", "app.cuda_only", "app.model"]),
    # a module with a branch: itself (and model.py)
    ("app/plain.py", FILES["app/plain.py"] + "\n\nLIMIT = 3\n", ["app.model", "app.plain"]),
    # a module no fold reads: only what read every module
    ("app/npu_ops.py", FILES["app/npu_ops.py"] + "\n\ndef npu_add(x):\n    return x\n",
     ["app.model"]),
])
def test_after_an_edit_the_edited_module_and_its_readers_fold_again(
        tmp_path: Path, folded: list[str], path: str, text: str, again: list[str]) -> None:
    memory = FoldMemory()
    guards.fold_contexts(module_index(tmp_path / "before", FILES), [BASE], memory=memory,
                         version=_version(FILES))
    edited = {**FILES, path: text}
    index = module_index(tmp_path / "after", edited)
    folded.clear()
    reused = guards.fold_contexts(index, [BASE], memory=memory, version=_version(edited))[0]
    assert folded == again
    whole_index = module_index(tmp_path / "whole", edited)
    assert _lines(reused) == _lines(guards.fold_contexts(whole_index, [BASE])[0])
    assert index.sought_by_name == whole_index.sought_by_name


def test_a_tree_of_another_shape_folds_every_module(tmp_path: Path,
                                                    folded: list[str]) -> None:
    memory = FoldMemory()
    guards.fold_contexts(module_index(tmp_path / "before", FILES), [BASE], memory=memory,
                         version=_version(FILES))
    grown = {**FILES, "app/extra.py": "X = 1\n"}  # a module more: names may resolve otherwise
    folded.clear()
    guards.fold_contexts(module_index(tmp_path / "after", grown), [BASE], memory=memory,
                         version=_version(grown))
    assert folded == BRANCHED


@pytest.mark.parametrize(("path", "added", "again"), [
    # a comment: the module's attribute assignments, classes and imports are what they were
    # (lines aside), so only the edited module folds again (npu_ops has no branch)
    ("app/npu_ops.py", "# (more kernels to come)\n", []),
    ("app/plain.py", "# (a comment)\n", ["app.plain"]),
    # a class more: the classes related by name to model.py's may be others
    ("app/npu_ops.py", "\n\nclass NpuModel:\n    pass\n", ["app.model"]),
    # an attribute assigned somewhere: the one assignment of `use_sparse` may not be the one
    ("app/plain.py", "\n\ndef tune(m):\n    m.use_sparse = True\n", ["app.model", "app.plain"]),
])
def test_what_an_edit_gives_the_tree_wide_tables_is_read_from_the_cache(
        tmp_path: Path, folded: list[str], path: str, added: str, again: list[str]) -> None:
    cache = tmp_path / "cache"
    before = module_index(tmp_path / "before", FILES)
    version = _version(FILES)
    for name, mod in before.modules.items():  # (what the scan of the tree before left)
        FactsCache(cache).put(mod.path, version.modules[name], "python", mod.facts)
    stored(cache, guards.fold_contexts, before, [BASE], "tree-1", FoldMemory(), version)
    edited = {**FILES, path: FILES[path] + added}
    after = module_index(tmp_path / "after", edited)
    folded.clear()
    reused = stored(cache, guards.fold_contexts, after, [BASE], "tree-2", FoldMemory(),
                                  _version(edited))[0]
    assert folded == again
    assert _lines(reused) == _lines(guards.fold_contexts(
        module_index(tmp_path / "whole", edited), [BASE])[0])


def test_the_first_contexts_stay_bases_after_later_ones(tmp_path: Path,
                                                        folded: list[str]) -> None:
    # the rounds' own context first, then plans under other drops: one keeps is_npu True
    # (a_early, b_late fold otherwise), then one drops FA3 -- nearest the first context
    # (only the backend folds otherwise), not the last one folded (three modules would)
    index = module_index(tmp_path / "tree", FILES)
    memory = FoldMemory()
    guards.fold_contexts(index, [BASE], memory=memory)
    folded.clear()
    guards.fold_contexts(index, [NPU], memory=memory)
    assert folded == ["app.a_early", "app.b_late"]
    assert [r.ctx for r in memory.records] == [NPU]  # (the last one only)
    folded.clear()
    fa3 = guards.fold_contexts(index, [FA3_DROPPED], memory=memory)[0]
    assert folded == ["app.backend"]
    assert _lines(fa3) == _lines(guards.fold_contexts(
        module_index(tmp_path / "whole", FILES), [FA3_DROPPED])[0])
    # the home holds the first two contexts given, whatever comes after
    assert list(memory.home) == [BASE.digest(), NPU.digest()]


def test_a_first_context_the_store_answered_is_read_back_when_another_is_folded(
        tmp_path: Path, folded: list[str]) -> None:
    cache = tmp_path / "cache"
    index = module_index(tmp_path / "tree", FILES)
    version = _version(FILES)
    stored(cache, guards.fold_contexts, index, [BASE], "tree-1", FoldMemory(), version)
    # the next scan: its own context answered by the store (nothing folded, nothing read)
    memory = FoldMemory()
    folded.clear()
    stored(cache, guards.fold_contexts, index, [BASE], "tree-1", memory, version)
    assert folded == [] and memory.home == {BASE.digest(): None}
    stored(cache, guards.fold_contexts, index, [NPU], "tree-1", memory, version)
    assert folded == ["app.a_early", "app.b_late"]
    home = memory.home[BASE.digest()]
    assert home is not None and home.ctx == BASE
    folded.clear()
    stored(cache, guards.fold_contexts, index, [FA3_DROPPED], "tree-1", memory, version)
    assert folded == ["app.backend"]


def test_a_memory_with_home_records_reads_no_last_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    index = module_index(tmp_path / "tree", FILES)
    version = _version(FILES)
    # scan 1: BASE, then FA3_DROPPED -- the last context folded in this tree
    first = FoldMemory()
    stored(cache, guards.fold_contexts, index, [BASE], "tree-1", first, version)
    stored(cache, guards.fold_contexts, index, [FA3_DROPPED], "tree-1", first, version)
    asked: list[str] = []
    real = guards._record

    def record(cache: object, version: TreeVersion, digest: str, seen: set[str]
               ) -> object:
        asked.append(digest)
        return real(cache, version, digest, seen)  # type: ignore[arg-type]

    monkeypatch.setattr(guards, "_record", record)
    # a memory with nothing of its own: the last record is a base to try
    stored(cache, guards.fold_contexts, index, [NPU], "tree-1", FoldMemory(), version)
    assert asked == [NPU.digest(), FA3_DROPPED.digest()]
    # scan 2: its own context (BASE) answered by the store, then a plan's context: the home
    # record is read, and the context's own; not the last one
    second = FoldMemory()
    stored(cache, guards.fold_contexts, index, [BASE], "tree-1", second, version)
    asked.clear()
    stored(cache, guards.fold_contexts, index, [PLAIN_FORCED], "tree-1", second, version)
    assert asked == [BASE.digest(), PLAIN_FORCED.digest()]


def test_records_read_back_from_the_store_share_the_reads_they_hold_alike(
        tmp_path: Path, folded: list[str]) -> None:
    cache = tmp_path / "cache"
    index = module_index(tmp_path / "tree", FILES)
    version = _version(FILES)
    stored(cache, guards.fold_contexts, index, [BASE, NPU], "tree-1", FoldMemory(), version)
    # the next scan: both contexts answered by the store, then a plan's context folded
    memory = FoldMemory()
    stored(cache, guards.fold_contexts, index, [BASE, NPU], "tree-1", memory, version)
    assert memory.home == {BASE.digest(): None, NPU.digest(): None}
    folded.clear()
    stored(cache, guards.fold_contexts, index, [FA3_DROPPED], "tree-1", memory, version)
    assert folded == ["app.backend"]
    base, npu = memory.home[BASE.digest()], memory.home[NPU.digest()]
    assert base is not None and npu is not None and (base.ctx, npu.ctx) == (BASE, NPU)
    # whether the platform is an NPU is no question of backend, cuda_only, model or plain:
    # their reads under both contexts are the same, and read back they are one set
    for module in ["app.backend", "app.cuda_only", "app.model", "app.plain"]:
        assert npu.probes[module] == base.probes[module]
    assert all(npu.probes[m] is base.probes[m] for m in base.probes
               if npu.probes.get(m) == base.probes[m])
    # each read of the sets held apart is one tuple too
    reads = [p for m, ps in npu.probes.items() if ps is not base.probes.get(m) for p in ps]
    assert len({id(p) for p in reads}) == len(set(reads))
