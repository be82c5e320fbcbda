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

On disk: per scanned tree, ``<cache>/edges/<hash of the tree's path>``, in the checked format of
every depgraph cache (corrupted -> rebuilt), and beside it the changes since (``.changes``):
a scan that resolved something the stored memo did not hold writes only the records of the
modules it changed, with the index key it ends with -- a ``--drop`` change or an edited file
changes a few dozen modules' records of thousands (the whole memo is ~23 MB on the largest
trees) -- until they are a quarter of the modules, or the shape or the options every record
depends on changed: then the whole memo is written again, and the changes go. The changes
name the whole memo they apply to (a token it was written with): changes of another are
ignored.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import secrets
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

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
        self._token: str | None = None  # the loaded whole memo's (None: none loaded)

    @property
    def _changes(self) -> Path | None:
        return self._file.with_name(self._file.name + _CHANGES) if self._file is not None \
            else None

    def load(self, key: IndexKey) -> EdgeMemo:
        """The memo the last scan of a tree of this shape ended with, less the records of
        changed modules and of the modules that read one (else an empty memo)."""
        self._token = None
        loaded = read_keyed(self._file, lambda head: isinstance(head, tuple) and len(head) == 2
                            and isinstance(head[0], IndexKey) and head[0].shape == key.shape
                            ) if self._file is not None else None
        if loaded is None:
            return EdgeMemo()  # (another tree shape's memo is not even unpickled)
        (stored, token), memo = cast(tuple[tuple[IndexKey, str], object], loaded)
        if not isinstance(memo, EdgeMemo):
            return EdgeMemo()
        self._token = token
        touched: set[str] = set()
        changes = read_keyed(self._changes, lambda head: isinstance(head, tuple)
                             and len(head) == 2 and head[0] == token
                             and isinstance(head[1], IndexKey) and head[1].shape == key.shape
                             ) if self._changes is not None else None
        if changes is not None and isinstance(changes[1], dict):
            stored = cast(tuple[str, IndexKey], changes[0])[1]
            for module, variants in changes[1].items():
                if variants:
                    memo.variants[module] = variants
                else:
                    memo.variants.pop(module, None)
                touched.add(module)
        changed = {m for m, digest in key.modules.items() if stored.modules.get(m) != digest}
        memo.records.clear()
        memo.added = 0
        if changed:
            for module in list(memo.variants):
                kept = [] if module in changed else [
                    (local, record) for local, record in memo.variants[module]
                    if not record.consulted & changed]
                if len(kept) != len(memo.variants[module]):
                    touched.add(module)
                if kept:
                    memo.variants[module] = kept
                else:
                    del memo.variants[module]
            memo.added = 1  # what is left must be stored under the new digests
        memo.touched = touched
        return memo

    def save(self, key: IndexKey, memo: EdgeMemo) -> None:
        """Persist ``memo`` when it holds records the loaded one did not: the records of the
        modules it changed, or the whole memo (see the module docstring)."""
        if self._file is None or self._changes is None or not memo.added:
            return
        touched = memo.touched
        if self._token is not None and touched is not None \
                and len(touched) * _WHOLE_AFTER <= len(memo.variants):
            write_keyed(self._changes, (self._token, key),
                        {m: memo.variants.get(m, []) for m in sorted(touched)}, shared=True)
            return
        kept = dataclasses.replace(memo, records={}, made_attrs={}, touched=None)
        self._token = secrets.token_hex(8)
        write_keyed(self._file, (key, self._token), kept, shared=True)
        with contextlib.suppress(OSError):
            self._changes.unlink(missing_ok=True)


# the changes file beside a whole memo, and the share of the modules (1 in this many) whose
# changed records are written as changes: more, and the whole memo is written again
_CHANGES = ".changes"
_WHOLE_AFTER = 4
