"""Graph stage, cache: each module's edges (:class:`analyzer.graph.python.EdgeMemo`) persisted
between scans of the same tree.

A module's edges are a function of its own facts, of the facts of the modules its resolution
read (recorded per record: ``consulted``), of what it read of the tree's shape (which names
are modules, packages, extension modules; what a package holds; recorded per record:
``shape``, :mod:`analyzer.resolve.shape`) and of what :class:`EdgeMemo` checks itself (the
module's folded lines, the folds, registries and subclasses its resolution went through, the
options every module's edges depend on). So the memo a scan ends with is handed to the next
scan of the tree, less the records of every module whose bytes changed (or that is now
parsed, or only counted, or was added or removed), of every module that read one of those,
and of every module that read something of the shape the tree now answers otherwise: a
profile edit, ``--drop``/``--keep`` or ``--no-result-cache`` replays every module its folds
leave alone; an edited file resolves itself and what resolved through it; a file added,
removed or renamed resolves what asked about it (the gate's copy, whose files the plan
deletes, resolves the modules that imported them).

On disk: the query ``edges`` of the store (:mod:`analyzer.core`), one entry per scanned tree, in
the checked format of every depgraph cache (corrupted -> rebuilt), and beside it the changes since
(``.changes``): a scan that resolved something the stored memo did not hold writes only the records
of the modules it changed, with the index key it ends with -- a ``--drop`` change or an edited file
changes a few dozen modules' records of thousands (the whole memo is ~23 MB on the largest
trees) -- until they are a quarter of the modules, or the options every record depends on
changed: then the whole memo is written again, and the changes go. The changes
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
from analyzer.resolve.shape import ModuleFile, TreeShape, shape_changes, tree_shape

EDGES = Query("edges", code=("analyzer.graph",))


@dataclass(frozen=True)
class IndexKey:
    """What the module index is a function of: its shape (the version of the code that
    resolves and graphs it: the query ``edges``, each module's name, path and package flag,
    the extension modules) and each module's bytes."""

    shape: str  # a digest of the code's version and of ``files`` and ``extensions``
    modules: dict[str, str]  # module -> sha256 of its file ("+counted" when not parsed)
    code: str = ""  # the version of the query ``edges``
    files: tuple[ModuleFile, ...] = ()  # (module, path, is_package), by module
    extensions: tuple[tuple[str, str], ...] = ()  # (extension module, its target)

    def digest(self) -> str:
        """One digest of the whole key."""
        out = hashlib.sha256(self.shape.encode())
        for name, digest in sorted(self.modules.items()):
            out.update(f"\0{name}\0{digest}".encode())
        return out.hexdigest()

    def tree_shape(self) -> TreeShape:
        """The shape the key describes (as the index built from it has it)."""
        return tree_shape(self.files, dict(self.extensions))


def index_key(index: ModuleIndex, files: Mapping[str, FileInfo],
              counted: Collection[str]) -> IndexKey:
    shape = hashlib.sha256(EDGES.version.encode())
    digests: dict[str, str] = {}
    layout: list[ModuleFile] = []
    for name in sorted(index.modules):
        mod = index.modules[name]
        shape.update(f"\0{name}\0{mod.path}\0{int(mod.is_package)}".encode())
        layout.append((name, mod.path, mod.is_package))
        info = files.get(mod.path)
        digests[name] = (info.sha256 if info else "-") + (COUNTED if mod.path in counted
                                                          else "")
    extensions = tuple(sorted(index.extensions.items()))
    for ext, target in extensions:
        shape.update(f"\1{ext}\0{target}".encode())
    return IndexKey(shape.hexdigest(), digests, EDGES.version, tuple(layout), extensions)


class EdgeStore:
    """The persisted memo of one tree; ``directory`` None keeps nothing."""

    def __init__(self, directory: Path | None, tree_root: Path | str,
                 origin: Path | str | None = None):
        self._store = Store(directory) if directory is not None else None
        self._slot = tree_key(tree_root)
        # the slot of the tree this one was pruned from (the gate's copy: the scanned
        # tree's): where a first scan of this one starts from
        self._origin = tree_key(origin) if origin is not None else None
        self._token: str | None = None  # the loaded whole memo's (None: none loaded)

    def load(self, key: IndexKey) -> EdgeMemo:
        """The memo the last scan of this tree ended with -- or, when none is kept, the one
        the last scan of the tree it was pruned from ended with (``origin``) -- less the
        records of changed modules, of the modules that read one, and -- when the tree's
        shape changed since -- of those that read something of the shape it answers
        otherwise (else an empty memo). The origin's memo is this tree's before the
        pruning's edits and deletions: what it keeps is what a scan of the pruned tree in
        the origin's place would keep."""
        self._token = None
        store = self._store
        if store is None:
            return EdgeMemo()
        found = self._read(store, self._slot, key)
        own = found is not None
        if found is None and self._origin is not None:
            found = self._read(store, self._origin, key)
        if found is None:
            return EdgeMemo()
        stored, token, memo, touched = found
        if own:  # (the origin's: written under this tree's slot in whole, with a new token)
            self._token = token
        # (a module added or removed is changed: a record that read it asked for its facts)
        changed = {m for m, digest in key.modules.items() if stored.modules.get(m) != digest}
        changed.update(stored.modules.keys() - key.modules.keys())
        reshaped = shape_changes(stored.tree_shape(), key.tree_shape()) \
            if stored.shape != key.shape else None
        if reshaped:  # (a module whose file or package flag changed reads otherwise too)
            changed.update(n for n in reshaped.names if n in key.modules or n in stored.modules)
        memo.records.clear()
        memo.added = 0
        if changed or reshaped:
            for module in list(memo.variants):
                kept = [] if module in changed else [
                    (local, record) for local, record in memo.variants[module]
                    if not record.consulted & changed
                    and not (reshaped and reshaped.touches(record.shape_reads()))]
                if len(kept) != len(memo.variants[module]):
                    touched.add(module)
                if kept:
                    memo.variants[module] = kept
                else:
                    del memo.variants[module]
            memo.added = 1  # what is left must be stored under the new digests
        if not own:
            memo.added = 1  # (kept under this tree's slot: the next scan of it starts there)
        memo.touched = touched
        return memo

    @staticmethod
    def _read(store: Store, slot: str, key: IndexKey
              ) -> tuple[IndexKey, str, EdgeMemo, set[str]] | None:
        """(the index key it was stored with, its token, the memo, the modules its changes
        touched) of the whole memo kept under ``slot`` with its changes applied, or None (none
        of this code's kept)."""
        loaded = store.get_keyed(EDGES, slot, lambda head: isinstance(head, tuple)
                                 and len(head) == 2 and isinstance(head[0], IndexKey)
                                 and head[0].code == key.code)
        if loaded is None:
            return None  # (another code's memo is not even unpickled)
        (stored, token), memo = cast(tuple[tuple[IndexKey, str], object], loaded)
        if not isinstance(memo, EdgeMemo):
            return None
        touched: set[str] = set()
        changes = store.get_keyed(EDGES, slot, lambda head: isinstance(head, tuple)
                                  and len(head) == 2 and head[0] == token
                                  and isinstance(head[1], IndexKey)
                                  and head[1].code == key.code, suffix=_CHANGES)
        if changes is not None and isinstance(changes[1], dict):
            stored = cast(tuple[str, IndexKey], changes[0])[1]
            for module, variants in changes[1].items():
                if variants:
                    memo.variants[module] = variants
                else:
                    memo.variants.pop(module, None)
                touched.add(module)
        return stored, token, memo, touched

    def save(self, key: IndexKey, memo: EdgeMemo) -> None:
        """Persist ``memo`` when it holds records the loaded one did not: the records of the
        modules it changed, or the whole memo (see the module docstring)."""
        store = self._store
        if store is None or not memo.added:
            return
        touched = memo.touched
        if self._token is not None and touched is not None \
                and len(touched) * _WHOLE_AFTER <= len(memo.variants):
            store.put_keyed(EDGES, self._slot, (self._token, key),
                            {m: memo.variants.get(m, []) for m in sorted(touched)},
                            shared=True, suffix=_CHANGES)
            memo.added = 0  # (saved: the changes since the whole memo stay ``touched``)
            return
        kept = dataclasses.replace(memo, records={}, made_attrs={}, touched=None)
        self._token = secrets.token_hex(8)
        store.put_keyed(EDGES, self._slot, (key, self._token), kept, shared=True)
        store.remove(EDGES, self._slot, suffix=_CHANGES)
        memo.added, memo.touched = 0, set()  # (saved in whole: no changes since)


# the changes file beside a whole memo, and the share of the modules (1 in this many) whose
# changed records are written as changes: more, and the whole memo is written again
_CHANGES = ".changes"
_WHOLE_AFTER = 4
