"""Decide stage, guard folding: the folds of one guard context reused under another.

A module's folds are a function of the tree and of what their evaluations read of the guard
context: the constants looked up (found or not), the domains a chain falls in, the forced
clauses, the dropped enum members and predicates, the dead imports -- also what the other
modules' names they evaluated read (``Evaluator.probes``, carried with each memoised name).
A :class:`FoldRecord` keeps, for every module with branches, its dead regions and those
reads. Under a new context a module whose every read answers the same folds the same: its
regions are taken over, and only the other modules are folded again (in the tree's order, as
a whole pass would). A ``--drop`` change, or the rounds' refold after blocking a selected
key, reads a few dozen modules' branches instead of all of them.

A record made in a tree of another shape (the gate's copy, whose files the plan deleted,
starting from the scanned tree's folds) serves too when both shapes are known: each module's
reads of the shape are in its reads (``("S", "in:name")``), so a module folds again when it
read a part of the shape the two trees answer otherwise (:func:`~analyzer.resolve.shape.
shape_changes`), a module that only one of the two has, or every module's tables.

Exact, not approximate: an evaluation is a pure function of the tree and of the answers to
its reads, as long as it met no cycle cut (a name asked again while it is being answered:
its value then depends on which name was asked first). A record with a cut is never a base,
and a refold that meets one is redone as a whole pass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TypeVar

from analyzer.config.globs import WILDCARDS, DottedPrefixes
from analyzer.core.store import tree_key
from analyzer.decide.guards_eval import TAINT, GlobKeys, GuardContext, Probe, first_domain
from analyzer.decide.guards_names import chain_tails
from analyzer.decide.regions import DeadRegion
from analyzer.resolve.shape import ModuleFile, ShapeChanges, TreeShape, shape_changes, tree_shape

_K = TypeVar("_K")


# the kinds of reads :func:`_changed` matches by name against a changed pattern: constant
# keys, domains' chains, dead imports
_MATCHED_KINDS = frozenset({"k", "d", "i"})


COUNTED = "+counted"  # a module digest's suffix when the file was counted, not parsed


@dataclass(frozen=True)
class TreeVersion:
    """What a tree's folds are a function of, besides the context: its shape (every module's
    name, path and package flag, the extension modules, the version of the graph stage's code: what
    resolution answers of names that are modules) and each module's bytes."""

    shape: str  # a digest of the shape
    modules: Mapping[str, str]  # module -> a digest of its file (+ COUNTED: not parsed)
    # the shape itself, when known: (module, path, is_package) of each module, the extension
    # modules (a record keeps its tree's apart: :meth:`FoldRecord.__getstate__`)
    files: tuple[ModuleFile, ...] = field(default=(), compare=False, repr=False)
    extensions: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)

    def changed_since(self, other: TreeVersion) -> set[str]:
        """The modules whose bytes differ from ``other``'s, and those only one of the two
        has."""
        changed = {m for m, digest in self.modules.items() if other.modules.get(m) != digest}
        changed.update(other.modules.keys() - self.modules.keys())
        return changed

    def tree_shape(self) -> TreeShape | None:
        """The shape (None: not known)."""
        return tree_shape(self.files, dict(self.extensions)) if self.files else None

    def bare(self) -> TreeVersion:
        """This version without the shape itself (the digest stays)."""
        return TreeVersion(self.shape, self.modules) if self.files else self


@dataclass
class FoldRecord:
    """One context's folds of one tree, module by module."""

    ctx: GuardContext
    regions: dict[str, list[DeadRegion]]  # modules with dead regions -> them
    probes: dict[str, frozenset[Probe]]  # every module with branches -> what folding it read
    version: TreeVersion | None = None  # the tree's (None: not known)
    _matchable: frozenset[Probe] | None = field(default=None, repr=False, compare=False)

    @property
    def tainted(self) -> bool:
        return any(TAINT in p for p in self.probes.values())

    def matchable(self) -> frozenset[Probe]:
        """Every read of any module that a changed pattern may answer otherwise (a constant
        key, a domain, a dead import: :func:`_changed` matches them by name), once -- under
        a tenth of all the reads (most are forced clauses'), the only ones it looks through."""
        if self._matchable is None:
            self._matchable = frozenset(
                p for reads in self.probes.values() for p in reads if p[0] in _MATCHED_KINDS)
        return self._matchable

    def __getstate__(self) -> tuple[GuardContext, dict[str, list[DeadRegion]],
                                    dict[str, frozenset[Probe]], TreeVersion | None]:
        # (the shape is kept once per tree, not in each record: ``analyzer.decide.guards``)
        return self.ctx, self.regions, self.probes, \
            self.version.bare() if self.version is not None else None

    def __setstate__(self, state: tuple[GuardContext, dict[str, list[DeadRegion]],
                                        dict[str, frozenset[Probe]], TreeVersion | None]
                     ) -> None:
        self.ctx, self.regions, self.probes, self.version = state
        self._matchable = None


def _typed(value: object) -> tuple[str, object]:
    """A value with its type (``True == 1``, but they fold differently)."""
    return type(value).__name__, value


def reusable(record: FoldRecord, ctx: GuardContext, edited: Collection[str] = (),
             tree_wide: bool = False, reshaped: ShapeChanges | None = None
             ) -> set[str] | None:
    """The modules of ``record`` whose folds hold under ``ctx`` too, in a tree whose
    ``edited`` modules' bytes differ from the record's tree (or that only one of the two
    has) and whose shape answers the reads ``reshaped`` touches otherwise (None: the same
    shape) -- None when the record cannot serve: a cycle cut, or another rule for
    ``TYPE_CHECKING``. An edited module folds again, and so does every module whose folding
    read an edited one's facts, or a part of the shape that changed, and -- when
    ``tree_wide``: an edit changed what the tree-wide tables hold (:func:`tree_wide`) --
    every module whose folding read every module's."""
    if record.ctx.fold_type_checking != ctx.fold_type_checking or record.tainted:
        return None
    changed = _changed(record, record.ctx, ctx)
    changed.update(("r", m) for m in edited)
    if tree_wide:
        changed.add(("T",))
    if not changed and not reshaped:
        return set(record.probes)
    return {m for m, reads in record.probes.items()
            if m not in edited and reads.isdisjoint(changed)
            and not (reshaped and reshaped.touches(p[1] for p in reads if p[0] == "S"))}


def _changed(record: FoldRecord, old: GuardContext, new: GuardContext) -> set[Probe]:
    """The reads of ``record`` that ``new`` answers otherwise than ``old``, found from the
    two contexts' differences: an entry only one has, or holds otherwise (a forced clause,
    an enum member, a predicate, a constant, a domain's pattern, a dead import), and the
    reads it answers."""
    out: set[Probe] = set()
    if old.forced != new.forced:
        out.update(("f", m, str(line)) for m, line in _differ(old.forced, new.forced))
    out.update(("m", q) for q in old.dropped_members ^ new.dropped_members)
    out.update(("p", q) for q in old.false_predicates ^ new.false_predicates)
    keys = _differ(old.constants, new.constants) if old.constants != new.constants else set()
    out.update(("K", key) for key in keys)
    out.update(("k", k) for k in keys if WILDCARDS.isdisjoint(k))
    old_globs, new_globs = GlobKeys.of(old.constants), GlobKeys.of(new.constants)
    if _typed_items(old_globs) != _typed_items(new_globs):  # (a name's answer: its first)
        out.update(p for p in record.matchable() if p[0] == "k"
                   and _typed_first(old_globs, p[1]) != _typed_first(new_globs, p[1]))
    if old.domains != new.domains:  # (a chain's answer: the first pattern matching a tail)
        out.update(p for p in record.matchable() if p[0] == "d"
                   and _domain_of(old.domains, p[1]) != _domain_of(new.domains, p[1]))
    if old.dead_imports != new.dead_imports:
        dead = DottedPrefixes(old.dead_imports ^ new.dead_imports)
        out.update(p for p in record.matchable() if p[0] == "i" and dead.match(p[1]))
    whole = {("M",): bool(old.dropped_members) != bool(new.dropped_members),
             ("I",): bool(old.dead_imports) != bool(new.dead_imports)}
    out.update(p for p, differs in whole.items() if differs)
    return out


@lru_cache(maxsize=1 << 16)
def _domain_of(domains: tuple[tuple[str, frozenset[str | int]], ...], chain: str
               ) -> tuple[str, frozenset[str | int]] | None:
    """:func:`first_domain` of ``chain``'s tails, once per domains and chain: the records a
    context is compared with, and the plans under other drops a worker makes one after
    another, ask it of the same few domains for the same chains (every domain read of every
    module), and each answer matches every pattern against every tail."""
    return first_domain(domains, chain_tails(chain))


def _typed_items(globs: GlobKeys) -> list[tuple[str, tuple[str, object]]]:
    return [(k, _typed(v)) for k, v in globs.items]


def _typed_first(globs: GlobKeys, name: str) -> tuple[str, tuple[str, object]] | None:
    """What a constant read of ``name`` gets from the glob keys (:meth:`GlobKeys.first`),
    its value typed: two contexts whose globs differ (a key, a value, or only their order)
    answer the read alike when this is the same for both -- another order changes the
    answer only of a name two globs match."""
    found = globs.first(name)
    return None if found is None else (found[0], _typed(found[1]))


def _differ(a: Mapping[_K, object], b: Mapping[_K, object]) -> set[_K]:
    """The keys whose values differ (or that one of the two lacks)."""
    return {k for k in a.keys() | b.keys()
            if k not in a or k not in b or _typed(a[k]) != _typed(b[k])}


@dataclass
class FoldMemory:
    """The fold records of a scan (most recent first), to fold a next context from. Each
    holds a set of reads per module (about 12 MB on the largest tree): a scan keeps the last
    ``limit`` (``fold_contexts`` adds the first of the contexts it folds together last: the
    rounds' own, which they fold again; the others are the open graph's), and the records
    read from the cache only while it chooses.

    Beside them, the records of the first ``home_limit`` contexts the memory is given (the
    rounds' own and the open graph's: what the plans under other drops -- the features'
    shares, what frees a blocked feature -- fold nearest to) are kept for every later
    context: folded, as folded; answered by the store, read from it when a context is next
    folded (:meth:`read_home`; in the forked worker that folds one, once per worker)."""

    records: list[FoldRecord] = field(default_factory=list)
    limit: int = 1
    # this tree's slot in the store (``analyzer.core.store.tree_key``; "": none), under which
    # the shape of the tree and the first context this memory folded are kept; and the slots
    # whose trees' records a fold with no record of this tree's shape starts from (a pruned
    # tree: its own, then the tree it was pruned from -- the gate's copy starts from the
    # scanned tree's folds)
    slot: str = ""
    starts: tuple[str, ...] = ()
    pointed: bool = False  # (the slot names this tree's shape already: only the first fold)
    loaded: set[str] = field(default_factory=set)  # (the keys of the records read)
    # context digest -> its record (None: the store holds it, not read yet), in order given
    home: dict[str, FoldRecord | None] = field(default_factory=dict)
    home_limit: int = 2

    def add(self, record: FoldRecord) -> None:
        self.records.insert(0, record)
        del self.records[self.limit:]

    def given(self, digest: str, record: FoldRecord | None) -> None:
        """A context of digest ``digest`` was folded (``record``) or answered by the store
        (None): kept at home while there is room."""
        if digest not in self.home and len(self.home) < self.home_limit:
            self.home[digest] = record

    def read_home(self, read: Callable[[str], FoldRecord | None]) -> None:
        """Read the home records the store answered (``read(digest)``: the stored record,
        None when it holds none -- then it is forgotten)."""
        for digest, record in list(self.home.items()):
            if record is None:
                found = read(digest)
                if found is None:
                    del self.home[digest]
                else:
                    self.home[digest] = self._shared(found)

    def _shared(self, record: FoldRecord) -> FoldRecord:
        """``record``, just read from the store, holding each module's reads as the very
        set a record held here holds when they are equal (and the reads of its other sets
        each once): records of one tree under nearby contexts read mostly alike, and
        unpickled apart they would hold it all twice (~14 MiB of sets and tuples each on
        the largest tree)."""
        sets: dict[frozenset[Probe], frozenset[Probe]] = {}
        for held in [*self.records, *self.home.values()]:
            if held is not None and held is not record:
                sets.update((reads, reads) for reads in held.probes.values())
        probes: dict[Probe, Probe] = {}
        out: dict[str, frozenset[Probe]] = {}
        for module, reads in record.probes.items():
            known = sets.get(reads)
            if known is None:
                known = sets[reads] = frozenset(probes.setdefault(p, p) for p in reads)
            out[module] = known
        record.probes = out
        return record

    def best(self, ctx: GuardContext, modules: Collection[str], version: TreeVersion | None,
             load: Callable[[GuardContext, set[str]], list[FoldRecord]],
             same_tables: Callable[[TreeVersion, set[str]], bool],
             shape_of: Callable[[TreeVersion], TreeShape | None] = TreeVersion.tree_shape
             ) -> tuple[FoldRecord, set[str]] | None:
        """The record (of these, or those ``load(ctx, keys read before)`` gives, each once:
        kept from an earlier scan) under which the most
        of ``modules`` (those with branches) fold the same as under ``ctx`` in the tree
        ``version`` (None: the records' own tree), with those modules; None when none
        serves. ``same_tables(old, edited)``: the ``edited`` modules of the tree ``old``
        give the tree-wide tables what they give them now (:func:`tree_wide`). A record of a
        tree of another shape serves when both shapes are known (``shape_of``): what folded
        there without reading a part of the shape that changed, nor every module's tables
        (a module more or less changes them), nor a module whose bytes differ, folds the
        same."""
        best: tuple[FoldRecord, set[str]] | None = None
        wanted = set(modules)
        home = [r for r in self.home.values()
                if r is not None and all(r is not x for x in self.records)]
        loaded = [self._shared(record) for record in load(ctx, self.loaded)]
        # the shape digest of each other tree -> what its shape answers otherwise than this
        # tree's (None: one of the two is not known)
        reshapes: dict[str, ShapeChanges | None] = {}
        for record in [*self.records, *home, *loaded]:
            reshaped: ShapeChanges | None = None
            if version is None and record.version is None:
                edited: set[str] = set()
            elif version is None or record.version is None:
                continue
            elif record.version.shape != version.shape:
                # (a tree of another shape: whose names are modules may differ)
                if record.version.shape not in reshapes:
                    now, then = shape_of(version), shape_of(record.version)
                    reshapes[record.version.shape] = shape_changes(then, now) \
                        if now is not None and then is not None else None
                reshaped = reshapes[record.version.shape]
                if reshaped is None:
                    continue
                edited = version.changed_since(record.version)
                # (a module whose file or package flag changed reads otherwise too)
                edited.update(n for n in reshaped.names
                              if n in version.modules or n in record.version.modules)
            else:
                edited = version.changed_since(record.version)
            tables = False  # (the tree-wide tables may hold otherwise)
            if record.version is not None:
                tables = reshaped is not None or (
                    bool(edited) and not same_tables(record.version, edited))
            same = reusable(record, ctx, edited, tables, reshaped)
            if same is None:
                continue
            same &= wanted
            if best is None or len(same) > len(best[1]):
                best = (record, same)
        return best


def fold_slots(slot: str, origin: str | None) -> tuple[str, tuple[str, ...]]:
    """:attr:`FoldMemory.slot` and :attr:`FoldMemory.starts` of a scan keeping its entries
    under ``slot`` (``RunSettings.slot``, else the tree's root): a pruned tree (``origin``:
    the root of the tree it was pruned from) starts from its own slot's last folds, else its
    origin's; any other tree only from records of its own shape."""
    own = tree_key(slot)
    return own, ((own, tree_key(origin)) if origin is not None else ())


def tree_wide(facts: object) -> tuple[object, ...]:
    """What a module's facts give the tables the evaluator builds of every module: its
    attribute assignments (their lines aside: an edit elsewhere in the file moves them), the
    kinds of the definitions they are in, its classes' bases, and its imports (which decide
    whether a name is a definition)."""
    assigns = tuple(getattr(facts, "attr_assigns", ()))
    scopes = {a.scope for a in assigns}
    definitions = tuple(getattr(facts, "definitions", ()))
    return (_sans_lines(assigns),
            tuple((d.name, d.kind) for d in definitions if d.name in scopes),
            tuple((d.name, d.bases) for d in definitions if d.kind == "class"),
            _sans_lines(tuple(getattr(facts, "imports", ()))))


def _sans_lines(value: object) -> object:
    if isinstance(value, tuple):
        return tuple(_sans_lines(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *(
            _sans_lines(getattr(value, f.name)) for f in dataclasses.fields(value)
            if not any(w in f.name for w in ("line", "byte", "span"))))
    return value
