"""Graph stage, cache: each module's edges (:class:`analyzer.graph.python.EdgeMemo`) persisted
between scans of the same tree.

A module's edges are a function of its own facts, of the facts of the modules its resolution
read (recorded per record: ``consulted``), of what the tree's shape (every module's name, path
and package flag, the extension modules the build installs) says of the names and paths it
asked about (recorded per record: ``shape``, ``paths``; :mod:`analyzer.resolve.shape`) and of
what :class:`EdgeMemo` checks itself (the module's folded lines, the folds, registries, gated
names and subclasses its resolution went through, the options every module's edges depend
on). So the memo a scan ends with is handed to the next scan of the tree, less the records of
every module whose bytes changed (or that is now parsed, or only counted), of every module
that read one of those, and -- when a file was added, removed or renamed -- of every module
that asked about a name or path the new shape answers otherwise: a profile edit,
``--drop``/``--keep`` or ``--no-result-cache`` replays every module its folds leave alone; an
edited file resolves itself and what resolved through it; a removed file, what asked about it.

A tree without a memo of its own may start from another tree's (``fallback``): the gate's
copy of a tree, and the user's pruned tree, from the scan of the tree they were pruned from
(the scan stores its memo before the gate runs). The same rules hold: what the other tree's
records asked about is checked in this tree.

On disk: the query ``edges`` of the store (:mod:`analyzer.core`), one entry per scanned tree, in
the checked format of every depgraph cache (corrupted -> rebuilt), and beside it the changes since
(``.changes``): a scan that resolved something the stored memo did not hold writes only the records
of the modules it changed, with the index key it ends with -- a ``--drop`` change or an edited file
changes a few dozen modules' records of thousands (the whole memo is ~23 MB on the largest
trees) -- until they are a quarter of the modules, or the shape or the options every record
depends on changed: then the whole memo is written again, and the changes go. The changes
name the whole memo they apply to (a token it was written with): changes of another are
ignored.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from analyzer.core.store import Query, Store, tree_key
from analyzer.decide.fold_reuse import COUNTED
from analyzer.graph.python import EdgeMemo
from analyzer.model import FileInfo
from analyzer.resolve.python import ModuleIndex
from analyzer.resolve.shape import ShapeDiff

EDGES = Query("edges", code=("analyzer.graph",))


@dataclass(frozen=True)
class IndexKey:
    """What the module index is a function of: its shape (the version of the code that
    resolves and graphs it: the query ``edges``, each
    module's name, path and package flag, the extension modules) and each module's bytes."""

    shape: str
    modules: dict[str, str]  # module -> sha256 of its file ("+counted" when not parsed)
    # the shape itself: module -> (path, is_package), and the extension modules
    layout: dict[str, tuple[str, bool]] = dataclasses.field(default_factory=dict)
    extensions: dict[str, str] = dataclasses.field(default_factory=dict)

    def digest(self) -> str:
        """One digest of the whole key."""
        out = hashlib.sha256(self.shape.encode())
        for name, digest in sorted(self.modules.items()):
            out.update(f"\0{name}\0{digest}".encode())
        return out.hexdigest()


def index_key(index: ModuleIndex, files: Mapping[str, FileInfo],
              counted: Collection[str]) -> IndexKey:
    shape = hashlib.sha256(EDGES.version.encode())
    digests: dict[str, str] = {}
    layout: dict[str, tuple[str, bool]] = {}
    for name in sorted(index.modules):
        mod = index.modules[name]
        shape.update(f"\0{name}\0{mod.path}\0{int(mod.is_package)}".encode())
        layout[name] = (mod.path, mod.is_package)
        info = files.get(mod.path)
        digests[name] = (info.sha256 if info else "-") + (COUNTED if mod.path in counted
                                                          else "")
    for ext, target in sorted(index.extensions.items()):
        shape.update(f"\1{ext}\0{target}".encode())
    return IndexKey(shape.hexdigest(), digests, layout, dict(index.extensions))


class EdgeStore:
    """The persisted memo of one tree; ``directory`` None keeps nothing. ``fallback``: the
    tree whose memo a tree without one of its own starts from (see the module docstring)."""

    def __init__(self, directory: Path | None, tree_root: Path | str,
                 fallback: Path | str | None = None):
        self._store = Store(directory) if directory is not None else None
        self._slot = tree_key(tree_root)
        self._fallback = tree_key(fallback) if fallback is not None else None
        self._token: str | None = None  # the loaded whole memo's (None: none loaded)
        # the modules whose records a load left (or found) for this tree, of how many
        self.kept_records = 0
        self.shape_dropped = 0  # records a load dropped for the shape's answers


    def load(self, key: IndexKey) -> EdgeMemo:
        """The memo the last scan of a tree of this shape ended with, less the records of
        changed modules and of the modules that read one (else an empty memo)."""
        self._token = None
        self.kept_records = self.shape_dropped = 0
        store = self._store
        if store is None:
            return EdgeMemo()
        own = self._load_slot(store, self._slot)
        if own is None and self._fallback is not None:
            other = self._load_slot(store, self._fallback)
            if other is not None:  # (stored as a whole memo of this tree's when saved)
                return self._valid(key, other[0], other[1], None)
        if own is None:
            return EdgeMemo()
        self._token = own[2]
        return self._valid(key, own[0], own[1], own[3])

    @staticmethod
    def _load_slot(store: Store, slot: str
                   ) -> tuple[IndexKey, EdgeMemo, str, set[str]] | None:
        """The memo stored for ``slot`` with its changes applied: (the key it was last
        stored under, the memo, the whole memo's token, the modules the changes hold)."""
        loaded = store.get_keyed(EDGES, slot, lambda head: isinstance(head, tuple)
                                 and len(head) == 2 and isinstance(head[0], IndexKey))
        if loaded is None:
            return None
        (stored, token), memo = cast(tuple[tuple[IndexKey, str], object], loaded)
        if not isinstance(memo, EdgeMemo):
            return None
        touched: set[str] = set()
        changes = store.get_keyed(EDGES, slot, lambda head: isinstance(head, tuple)
                                  and len(head) == 2 and head[0] == token
                                  and isinstance(head[1], IndexKey), suffix=_CHANGES)
        if changes is not None and isinstance(changes[1], dict):
            stored = cast(tuple[str, IndexKey], changes[0])[1]
            for module, variants in changes[1].items():
                if variants:
                    memo.variants[module] = variants
                else:
                    memo.variants.pop(module, None)
                touched.add(module)
        return stored, memo, token, touched

    def _valid(self, key: IndexKey, stored: IndexKey, memo: EdgeMemo,
               touched: set[str] | None) -> EdgeMemo:
        """``memo`` (stored under ``stored``) less the records that do not hold under
        ``key``: of a module changed or gone, of one that read a changed module, and of one
        that asked about a name or path the shape answers otherwise."""
        changed = {m for m, digest in key.modules.items() if stored.modules.get(m) != digest}
        changed.update(m for m in stored.modules if m not in key.modules)
        diff = None if stored.shape == key.shape else ShapeDiff(
            stored.layout, stored.extensions, key.layout, key.extensions)
        memo.records.clear()
        memo.added = 0
        if changed or diff is not None or touched is None:
            for module in list(memo.variants):
                was = memo.variants[module]
                kept = [] if module in changed or module not in key.modules else [
                    (local, record) for local, record in was
                    if not record.consulted & changed
                    and (diff is None or not diff.touches(record.shape, record.paths))]
                if diff is not None:
                    self.shape_dropped += sum(
                        1 for _, record in was if not record.consulted & changed
                        and diff.touches(record.shape, record.paths))
                if len(kept) != len(was) and touched is not None:
                    touched.add(module)
                if kept:
                    memo.variants[module] = kept
                else:
                    del memo.variants[module]
            memo.added = 1  # what is left must be stored under the new key
        memo.touched = touched
        self.kept_records = len(memo.variants)
        return memo

    def save(self, key: IndexKey, memo: EdgeMemo) -> None:
        """Persist ``memo`` when it holds records the loaded (or last saved) one did not: the
        records of the modules it changed, or the whole memo (see the module docstring).
        Saved again later, it writes what it kept since."""
        store = self._store
        if store is None or not memo.added:
            return
        touched = memo.touched
        if self._token is not None and touched is not None \
                and len(touched) * _WHOLE_AFTER <= len(memo.variants):
            store.put_keyed(EDGES, self._slot, (self._token, key),
                            {m: memo.variants.get(m, []) for m in sorted(touched)},
                            shared=True, suffix=_CHANGES)
            memo.added = 0
            return
        kept = dataclasses.replace(memo, records={}, made_attrs={}, touched=None)
        self._token = secrets.token_hex(8)
        store.put_keyed(EDGES, self._slot, (key, self._token), kept, shared=True)
        store.remove(EDGES, self._slot, suffix=_CHANGES)
        memo.added = 0
        memo.touched = set()  # (what it keeps from now on: changes of this whole memo)


# the changes file beside a whole memo, and the share of the modules (1 in this many) whose
# changed records are written as changes: more, and the whole memo is written again
_CHANGES = ".changes"
_WHOLE_AFTER = 4
