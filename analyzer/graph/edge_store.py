"""Graph stage, cache: each module's edges (:class:`analyzer.graph.python.EdgeMemo`) persisted
between scans of the same Python tree.

A module's edges are a function of the whole module index (every module's facts, the extension
modules the build installs) and of what :class:`EdgeMemo` checks itself (the module's folded
lines, the folds and registries its resolution went through, the options every module's edges
depend on). So the memo a scan ends with is handed to the next scan only when the index is
the same: every Python module's name, path, sha256 and whether it was parsed or only counted,
the extension modules, depgraph's fingerprint. That is the re-analysis of an unchanged tree
after a profile edit, ``--drop``/``--keep`` or ``--no-result-cache``: the modules whose folds
the change leaves alone replay their edges; the others, and every module when the options all
edges depend on changed, are resolved again. A changed file changes the key: all is resolved.

On disk: one file per scanned tree, ``<cache>/edges/<hash of the tree's path>``, in the checked
format of every depgraph cache (corrupted -> rebuilt); written only when a build resolved
something the stored memo did not hold.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from collections.abc import Collection, Mapping
from pathlib import Path

from analyzer.graph.python import EdgeMemo
from analyzer.model import FileInfo
from analyzer.resolve.python import ModuleIndex
from analyzer.util.cache_files import read_checked, write_checked
from analyzer.util.fingerprint import tool_fingerprint


def index_key(index: ModuleIndex, files: Mapping[str, FileInfo],
              counted: Collection[str]) -> str:
    """What the module index is a function of: modules (name, path, bytes, parsed or only
    counted), extension modules, and the depgraph that extracted and resolves them."""
    digest = hashlib.sha256(tool_fingerprint().encode())
    for name in sorted(index.modules):
        mod = index.modules[name]
        info = files.get(mod.path)
        digest.update(f"\0{name}\0{mod.path}\0{info.sha256 if info else '-'}\0"
                      f"{int(mod.is_package)}{int(mod.path in counted)}".encode())
    for ext, target in sorted(index.extensions.items()):
        digest.update(f"\1{ext}\0{target}".encode())
    return digest.hexdigest()


class EdgeStore:
    """The persisted memo of one tree; ``directory`` None keeps nothing."""

    def __init__(self, directory: Path | None, tree_root: Path):
        self._file = (directory / "edges" / hashlib.sha256(
            str(tree_root).encode()).hexdigest()[:24]) if directory is not None else None

    def load(self, key: str) -> EdgeMemo:
        """The memo the last scan of an index with this ``key`` ended with (else empty)."""
        payload = read_checked(self._file) if self._file is not None else None
        if payload is None:
            return EdgeMemo()
        try:
            stored_key, memo = pickle.loads(payload)
        except Exception:  # an unreadable cache is only a miss
            return EdgeMemo()
        if stored_key != key or not isinstance(memo, EdgeMemo):
            return EdgeMemo()
        memo.records.clear()
        memo.added = 0
        return memo

    def save(self, key: str, memo: EdgeMemo) -> None:
        """Persist ``memo`` when it holds records the loaded one did not."""
        if self._file is None or not memo.added:
            return
        kept = dataclasses.replace(memo, records={})  # the variants hold them
        write_checked(self._file, pickle.dumps((key, kept), protocol=pickle.HIGHEST_PROTOCOL))
