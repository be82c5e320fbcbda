"""Pipeline, the gate's verdicts kept between scans: the gate's early cut-off.

The gate (``analyzer.pipeline.gate``) applies a plan's manifest to a copy of the tree and
runs ``depgraph verify --before`` there: a scan of a second tree. What verify reports is a
function of the manifest and of the tree the copy is made of, which it reads in two ways:

- the files the manifest edits or deletes, by their bytes: the manifest carries the sha256
  of each, and apply refuses any other bytes (what verify then lints and compiles is those
  bytes with the manifest's edits);
- every other file through the copy's scan, which reads of a Python module parsed without
  errors what the analysis reads of it (its facts and its code without comments,
  ``PythonFacts.analysis_digest``: pyflakes and ``compile`` see no comment either, bar an
  encoding declaration, which the digest keeps) and of any other file its bytes: the
  rounds' early cut-off (``analyzer.pipeline.settled``) holds for the copy as for the tree.

So a verdict is kept under two keys, looked up in turn:

1. before the copy is made (:func:`verdict_key`): the tree's analysed content key
   (:func:`analysed_tree`: ``content_key`` with those digests, and the files the scan only
   counted) and the manifest but for the two figures it holds of the whole tree's bytes,
   which nothing the gate runs reads: ``tree.fingerprint`` (apply checks a tree by its
   packages and each edited file's sha256) and ``totals`` (the terminal's figures). A
   comment edited in a file the plan leaves alone keeps it: no copy is made.
2. once the manifest is applied to the copy (:func:`copy_verdict_key`): the copy as its
   verify reads it (the same digests, of the edited files as edited) and the manifest but
   for those figures and each deletion's ``sha256`` and ``lines`` (what the apply, done,
   read of the tree's bytes). A comment edited in a file the plan edits keeps it when the
   edited file reads alike: the copy is not scanned.

A manifest whose own verify fails is still never written: the verdict kept is that of the
same manifest's checks on a tree verify reads alike.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from analyzer.core.session import current_store
from analyzer.core.store import Query, key_of
from analyzer.extract.cache import PARSERS
from analyzer.pipeline.inputs import ScanInputs, content_key
from analyzer.pipeline.settled import analysed_digests

if TYPE_CHECKING:
    from pathlib import Path

    from analyzer.config.options import ScanOptions
    from analyzer.model import FileInfo
    from analyzer.pipeline.inputs import ChosenProfile
    from analyzer.resolve.python import ModuleIndex
    from analyzer.verify.problem import VerifyProblem

# what verify reported on a manifest's applied copy: all of depgraph, its patterns and what
# parses and lints for it
VERDICTS = Query("verdicts", code=("analyzer",), data=("queries",),
                 dists=(*PARSERS, "pyflakes"))

# the manifest's figures of the whole tree's bytes (read by nothing the gate runs)
_UNREAD = ("totals",)
_UNREAD_OF_TREE = ("fingerprint",)
# what a deletion reports of its file's bytes (read by the apply, done before the copy's key)
_UNREAD_OF_DELETION = ("sha256", "lines")


def analysed_modules(index: ModuleIndex, files: Mapping[str, FileInfo]
                     ) -> dict[str, tuple[str, str]]:
    """Path -> (sha256, analysis digest) of each module of ``index`` parsed without errors
    (``files``: the tree's files): what :func:`copy_verdict_key` need not look up again of
    the files a plan leaves alone."""
    return {path: (files[path].sha256, digest)
            for path, digest in analysed_digests(index).items() if path in files}


def analysed_tree(inputs: ScanInputs, options: ScanOptions, counted: frozenset[str],
                  index: ModuleIndex) -> str | None:
    """The key of the tree as the gate's copy reads it: every input of the scan, each module
    of ``index`` parsed without errors by what the analysis reads of it, and the files the
    scan only ``counted``. None when a file changed between its hashing and its reading."""
    if inputs.changed_since_key:
        return None
    return key_of("analysed-tree", content_key(inputs, options, analysed_digests(index)),
                  sorted(counted))


def verdict_key(tree: str, manifest: dict[str, Any]) -> str:
    """The key of the verdict on ``manifest`` applied to a copy of the tree keyed ``tree``
    (:func:`analysed_tree`): the manifest but for its figures of the whole tree's bytes."""
    return key_of("verdict", tree, _read_of(manifest))


def _read_of(manifest: dict[str, Any], of_deletion: tuple[str, ...] = ()) -> str:
    """``manifest`` as JSON without its figures of the whole tree's bytes and without the
    fields ``of_deletion`` of each deletion."""
    read = {k: v for k, v in manifest.items() if k not in _UNREAD}
    if isinstance(read.get("tree"), dict):
        read["tree"] = {k: v for k, v in read["tree"].items() if k not in _UNREAD_OF_TREE}
    if of_deletion:
        read["deletions"] = [{k: v for k, v in d.items() if k not in of_deletion}
                             for d in manifest.get("deletions", [])]
    return json.dumps(read, sort_keys=True)


def copy_verdict_key(copy: Path, manifest: dict[str, Any], options: ScanOptions,
                     chosen: ChosenProfile, original: Mapping[str, tuple[str, str]], *,
                     cache_dir: Path | None, slot: str | None, jobs: int) -> str | None:
    """The key of the verdict on ``manifest`` once applied to ``copy`` (the apply done): the
    copy as its verify reads it -- each Python file parsed without errors by its analysis
    digest, any other by its bytes (:func:`~analyzer.pipeline.inputs.content_key`; the files
    no store holds the facts of, the edited ones, parsed now: verify reads them stored) --
    and the manifest but for what reports the bytes of the tree it was made of (its figures
    of the whole tree, and each deletion's ``sha256`` and ``lines``: the apply that read
    them is done). ``original``: path -> (sha256, analysis digest) of the original tree's
    modules (a file the plan left alone is not looked up); ``cache_dir``, ``slot``,
    ``jobs``: the copy's verify's. None when nothing is stored or a file parsed here changed
    since it was hashed."""
    from analyzer.extract.cache import stored_facts
    from analyzer.extract.runner import extract_all
    from analyzer.pipeline.inputs import gather_inputs

    facts = stored_facts()
    if facts is None:
        return None
    inputs = gather_inputs(copy, options, cache_dir=cache_dir, pruned=True, chosen=chosen,
                           slot=slot)
    files = inputs.discovery.files
    analysed: dict[str, str] = {}
    unknown: list[int] = []
    for i, source in enumerate(files):
        if source.language != "python" or i in inputs.errors:
            continue
        same = original.get(source.path)
        if same is not None and same[0] == inputs.digests[i]:  # (the same bytes)
            analysed[source.path] = same[1]
            continue
        known = facts.get(source.path, inputs.digests[i], source.language)
        if known is None:
            unknown.append(i)
        elif known.analysis_digest:
            analysed[source.path] = known.analysis_digest
    for i, got in zip(unknown, extract_all(inputs.discovery.root, [files[i] for i in unknown],
                                           jobs=jobs), strict=True):
        if got.sha256 != inputs.digests[i]:
            return None
        if got.facts is not None and got.facts.analysis_digest:
            analysed[got.path] = got.facts.analysis_digest
    return key_of("verified-copy", content_key(inputs, options, analysed),
                  _read_of(manifest, _UNREAD_OF_DELETION))


def kept_verdict(key: str | None) -> list[VerifyProblem] | None:
    """The verdict kept under ``key`` (None: none kept, no key, no store)."""
    store = current_store()
    got = store.get(VERDICTS, key) if store is not None and key is not None else None
    return got if isinstance(got, list) else None


def keep_verdict(key: str | None, problems: list[VerifyProblem]) -> None:
    """Keep ``problems`` as the verdict under ``key`` (nothing without a key or a store)."""
    store = current_store()
    if store is not None and key is not None:
        store.put(VERDICTS, key, problems)
