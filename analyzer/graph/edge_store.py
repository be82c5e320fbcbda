"""Graph stage, cache: each module's edges (:class:`analyzer.graph.python.EdgeMemo`) persisted
between scans of the same tree.

A module's edges are a function of its own facts, of the facts of the modules its resolution
read (recorded per record: ``consulted``), of the tree's shape (every module's name, path and
package flag, the extension modules the build installs: what ``is_module`` answers) and of
what :class:`EdgeMemo` checks itself (the module's folded lines, the folds and registries its
resolution went through, the options every module's edges depend on). So the memo a scan ends
with is handed to the next scan of a tree of the same shape, less the records of every module
whose bytes changed (or that is now parsed, or only counted) and of every module that read
one of those: a profile edit, ``--drop``/``--keep`` or ``--no-result-cache`` replays every
module its folds leave alone; an edited file resolves itself and what resolved through it. A
file added, removed or renamed changes the shape: everything is resolved again.

On disk: one file per scanned tree, ``<cache>/edges/<hash of the tree's path>``, in the checked
format of every depgraph cache (corrupted -> rebuilt); written only when a build resolved
something the stored memo did not hold.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from analyzer.decide.fold_reuse import COUNTED
from analyzer.graph.python import EdgeMemo
from analyzer.model import FileInfo
from analyzer.resolve.python import ModuleIndex
from analyzer.util.cache_files import read_keyed, tree_cache_path, write_keyed
from analyzer.util.fingerprint import tool_fingerprint


@dataclass(frozen=True)
class IndexKey:
    """What the module index is a function of: its shape (depgraph's fingerprint, each
    module's name, path and package flag, the extension modules) and each module's bytes."""

    shape: str
    modules: dict[str, str]  # module -> sha256 of its file ("+counted" when not parsed)

    def digest(self) -> str:
        """One digest of the whole key."""
        out = hashlib.sha256(self.shape.encode())
        for name, digest in sorted(self.modules.items()):
            out.update(f"\0{name}\0{digest}".encode())
        return out.hexdigest()


def index_key(index: ModuleIndex, files: Mapping[str, FileInfo],
              counted: Collection[str]) -> IndexKey:
    shape = hashlib.sha256(tool_fingerprint().encode())
    digests: dict[str, str] = {}
    for name in sorted(index.modules):
        mod = index.modules[name]
        shape.update(f"\0{name}\0{mod.path}\0{int(mod.is_package)}".encode())
        info = files.get(mod.path)
        digests[name] = (info.sha256 if info else "-") + (COUNTED if mod.path in counted
                                                          else "")
    for ext, target in sorted(index.extensions.items()):
        shape.update(f"\1{ext}\0{target}".encode())
    return IndexKey(shape.hexdigest(), digests)


class EdgeStore:
    """The persisted memo of one tree; ``directory`` None keeps nothing."""

    def __init__(self, directory: Path | None, tree_root: Path):
        self._file = tree_cache_path(directory, "edges", tree_root) \
            if directory is not None else None

    def load(self, key: IndexKey) -> EdgeMemo:
        """The memo the last scan of a tree of this shape ended with, less the records of
        changed modules and of the modules that read one (else an empty memo)."""
        loaded = read_keyed(self._file, lambda head: isinstance(head, IndexKey)
                            and head.shape == key.shape) if self._file is not None else None
        if loaded is None:
            return EdgeMemo()  # (another tree shape's memo is not even unpickled)
        stored, memo = loaded
        if not isinstance(stored, IndexKey) or not isinstance(memo, EdgeMemo):
            return EdgeMemo()
        changed = {m for m, digest in key.modules.items() if stored.modules.get(m) != digest}
        memo.records.clear()
        memo.added = 0
        if changed:
            for module in list(memo.variants):
                kept = [] if module in changed else [
                    (local, record) for local, record in memo.variants[module]
                    if not record.consulted & changed]
                if kept:
                    memo.variants[module] = kept
                else:
                    del memo.variants[module]
            memo.added = 1  # what is left must be stored under the new digests
        return memo

    def save(self, key: IndexKey, memo: EdgeMemo) -> None:
        """Persist ``memo`` when it holds records the loaded one did not."""
        if self._file is None or not memo.added:
            return
        kept = dataclasses.replace(memo, records={}, made_attrs={})  # the variants hold them
        write_keyed(self._file, key, kept, shared=True)
