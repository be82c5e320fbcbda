"""Analysis stage, guard folding: platform probes and config checks -> dead line ranges.

Input: per-module ``Branch`` and ``ModuleAssign`` facts (extract stage), the module index
(resolve stage) and a ``GuardContext`` of declared constants, dropped registry keys and
imports that will not exist. Output: ``DeadRegion`` values: 1-based inclusive line ranges
from which no graph edges come, each with how to delete it and keep valid code. Pure: no
file is read, nothing is imported or executed (conditions are evaluated in
``guards_eval.py``).

Folding rules: clause *i* of an if-chain is dead when its condition is False, or when an
earlier condition is True; ``else`` is dead when an earlier condition is True. A conditional
expression loses the arm its condition rules out. A ``try`` body whose leading imports
include one of ``dead_imports`` fails (only imports may run before it), so the first except
clause catching ImportError replaces the statement. Anything not foldable is live. Regions
nested in a dead region are not repeated. ``if TYPE_CHECKING:`` blocks are left alone unless
``GuardContext.fold_type_checking`` is set.

Rewrites (for the codemod; ``statement`` is the whole if/try statement, ``keep`` the body
that survives): ``delete`` (the whole statement; put ``pass`` in its block if it was the
only statement, see ``Branch.sole_in_block``), ``delete_clause`` (elif/else clauses),
``promote_elif`` (the dead head and elifs before the first live ``elif``, which becomes
``if``), ``unwrap_else`` / ``unwrap_if`` (the kept body replaces the statement, dedented),
``ifexp`` (keep one arm; ``spans`` holds byte spans of the dead arm, the kept arm and the
whole expression, and ``partial`` says the dead arm shares a line with live code, so
line-based consumers must not drop that line's edges) and ``try_unwrap`` (the except body
replaces the statement).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from analyzer.config.globs import dotted_prefixes
from analyzer.core.store import Query
from analyzer.decide.fold_reuse import COUNTED, FoldMemory, FoldRecord, TreeVersion, tree_wide
from analyzer.decide.guards_eval import (
    UNKNOWN,
    Evaluator,
    GuardContext,
    Probe,
    tree_reads,
    truth,
)
from analyzer.decide.regions import DeadRegion
from analyzer.extract.cache import FactsCache, stored_facts
from analyzer.extract.python_branches import Branch, Clause, Cond
from analyzer.extract.python_facts import ImportFact, PythonFacts
from analyzer.model import FoldRewrite
from analyzer.resolve.python import ModuleIndex
from analyzer.resolve.shape import TreeShape, tree_shape

__all__ = ["DeadRegion", "GuardContext", "arm_region", "evaluate", "fold_all", "fold_module",
           "show"]

_CATCHES_IMPORT = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def evaluate(module: str, scope: str, cond: Cond, index: ModuleIndex,
             ctx: GuardContext) -> object | None:
    """Value of ``cond`` read in ``scope`` of ``module``; None when unknown (a literal
    ``None`` also reads as None)."""
    value = Evaluator(index, ctx).eval(module, scope, cond)
    return None if value is UNKNOWN else value


def fold_all(index: ModuleIndex, ctx: GuardContext, tree_key: str = ""
             ) -> dict[str, list[DeadRegion]]:
    """Dead regions of every module that has any. With ``tree_key`` (a digest of everything
    ``index`` is a function of: each module's name, path and bytes, the extension modules),
    they are stored under it and ``ctx`` (in the open session's store), so a scan of the
    same tree with the same context reads them back: folding is a pure
    function of the three, but for the attribute names it looks up tree-wide
    (``ModuleIndex.sought_by_name``), which are kept beside and noted again."""
    return fold_contexts(index, [ctx], tree_key)[0]


def fold_contexts(index: ModuleIndex, ctxs: Sequence[GuardContext], tree_key: str = "",
                  memory: FoldMemory | None = None, version: TreeVersion | None = None
                  ) -> list[dict[str, list[DeadRegion]]]:
    """:func:`fold_all` of each of ``ctxs``; those the store does not answer are folded in
    one pass over the modules, each module's branches unpacked once for all of them (they
    are held pickled: :class:`analyzer.extract.fact.Packed`). Each context's folding notes
    its own tree-wide names, as alone. With ``memory`` (the scan's fold records, see
    :mod:`analyzer.decide.fold_reuse`), a module that folds the same under a context folded
    before (in this scan; or kept in the cache from a scan of a tree of the same shape: the
    same context's, and the last one folded; none kept: the same context's and the rounds'
    first one in the tree last folded under a slot of ``memory.starts``, whose shape differs)
    is not folded again; each context's record is added to it (and kept in the cache; under
    ``memory.slot``, the tree's shape and the first context this memory folded). ``version``:
    the shape and each module's bytes (what tells which modules changed since a record was
    made; None: the records of ``memory`` are of this very tree)."""
    cache = stored_facts()
    keys = [hashlib.sha256(f"{tree_key}\0{ctx.digest()}".encode()).hexdigest()
            if cache is not None and tree_key else None for ctx in ctxs]
    out: list[dict[str, list[DeadRegion]] | None] = [None] * len(ctxs)
    for i, key in enumerate(keys):
        if key is not None and cache is not None:
            known = cache.get(_ENTRY, key, _KIND, FOLDS)
            if isinstance(known, tuple) and len(known) == 2:
                regions, sought = known
                index.sought_by_name.update(sought)
                out[i] = dict(regions)
    todo = [i for i, done in enumerate(out) if done is None]
    if not todo:
        if memory is not None:
            for ctx in ctxs:
                memory.given(ctx.digest(), None)
        return [done or {} for done in out]
    if memory is not None and cache is not None and version is not None:
        memory.read_home(lambda digest: _record(cache, version.shape, digest, memory.loaded))
    with_branches = [name for name in sorted(index.modules)
                     if getattr(index.modules[name].facts, "branches", ())]
    tables: dict[frozenset[tuple[str, str]], bool] = {}  # (asked once per edit)

    def same_tables(old: TreeVersion, edited: set[str]) -> bool:
        key = frozenset((m, old.modules.get(m, "")) for m in edited)
        if key not in tables:
            tables[key] = _same_tables(index, cache, old, edited)
        return tables[key]

    # each context: the modules folded again, the rest taken over from a record
    bases: dict[int, tuple[FoldRecord, set[str]] | None] = {
        i: memory.best(ctxs[i], with_branches, version,
                       lambda ctx, seen: _stored(cache, version, ctx, seen,
                                                 last=not memory.home, starts=memory.starts),
                       same_tables, lambda v: _shape_of(cache, v))
        if memory is not None else None for i in todo}
    records = _fold_pass(index, {i: ctxs[i] for i in todo}, with_branches, bases,
                         version)
    again = [i for i in todo if bases[i] is not None and records[i].tainted]
    if again:  # a cycle cut met: only a whole pass folds as a whole pass does
        records.update(_fold_pass(index, {i: ctxs[i] for i in again}, with_branches,
                                  dict.fromkeys(again), version))
    for i in reversed(todo):  # (the first context's record added last: see FoldMemory)
        record = records[i]
        sought = frozenset(a for reads in record.probes.values() for a in _sought(reads))
        index.sought_by_name.update(sought)
        key = keys[i]
        if key is not None and cache is not None:
            cache.put(_ENTRY, key, _KIND, (record.regions, sought), FOLDS)
        if memory is not None:
            memory.add(record)
            if cache is not None and version is not None:
                cache.put(_ENTRY, _record_key(version.shape, record.ctx.digest()), _RECORD_KIND,
                          record, FOLDS)
        out[i] = dict(record.regions)
    if memory is not None:
        for i, ctx in enumerate(ctxs):
            memory.given(ctx.digest(), records.get(i))
    if memory is not None and cache is not None and version is not None:
        cache.put(_ENTRY, _last_key(version.shape), _LAST_KIND,
                  records[todo[-1]].ctx.digest(), FOLDS)
        if memory.slot and version.files and not memory.pointed:
            # (the tree's shape and its rounds' first context -- the first this memory
            # folded -- for a pruned tree's first folds: not a later plan's under other drops)
            memory.pointed = True
            if cache.get(_ENTRY, _shape_key(version.shape), _SHAPE_KIND, FOLDS) is None:
                cache.put(_ENTRY, _shape_key(version.shape), _SHAPE_KIND,
                          (version.files, version.extensions), FOLDS)
            cache.put(_ENTRY, _slot_key(memory.slot), _SLOT_KIND,
                      (version.shape, records[todo[0]].ctx.digest()), FOLDS)
    return [done or {} for done in out]


def _sought(reads: frozenset[Probe]) -> list[str]:
    return [p[1] for p in reads if p[0] == "s"]


def _fold_pass(index: ModuleIndex, ctxs: dict[int, GuardContext], modules: list[str],
               bases: Mapping[int, tuple[FoldRecord, set[str]] | None],
               version: TreeVersion | None) -> dict[int, FoldRecord]:
    """Each context's record: the modules a base record answers taken over, the others
    folded in one pass in the tree's order (each module's branches unpacked once)."""
    records: dict[int, FoldRecord] = {}
    for i, ctx in ctxs.items():
        base = bases.get(i)
        if base is None:
            records[i] = FoldRecord(ctx, {}, {}, version)
        else:
            record, same = base
            records[i] = FoldRecord(ctx, {m: record.regions[m] for m in same
                                          if m in record.regions},
                                    {m: record.probes[m] for m in same}, version)
    shared = index.sought_by_name
    try:
        tables: dict[str, object] = {}  # (the tree-wide tables, built once for all)
        evaluators = {i: Evaluator(index, ctx, tables=tables) for i, ctx in ctxs.items()}
        for name in modules:
            folding = [i for i in ctxs if name not in records[i].probes]
            if not folding:
                continue
            facts = index.modules[name].facts
            branches = tuple(facts.branches)  # (a pack unpickled once)
            for i in folding:
                ev = evaluators[i]
                ev.probes = set()
                index.sought_by_name = set()  # (noted in the probes)
                with index.noting(shape=True) as read:
                    regions = fold_module(name, facts, index, ctxs[i], ev, branches)
                if regions:
                    records[i].regions[name] = regions
                records[i].probes[name] = frozenset(ev.probes.union(tree_reads(read)))
    finally:
        index.sought_by_name = shared
    return records


def _same_tables(index: ModuleIndex, cache: FactsCache | None, old: TreeVersion,
                 edited: set[str]) -> bool:
    """The ``edited`` modules give the tree-wide tables what they gave them in the tree
    ``old`` (their facts there read back from the cache; not there: not known, False; a
    module only counted there had empty facts)."""
    for name in edited:
        mod = index.modules.get(name)
        digest = old.modules.get(name, "")
        if mod is None or not digest:
            return False
        if digest.endswith(COUNTED):
            before: object = None  # (empty facts)
        elif cache is None or (before := cache.get(mod.path, digest, "python")) is None:
            return False
        if tree_wide(before) != tree_wide(mod.facts):
            return False
    return True


def _stored(cache: FactsCache | None, version: TreeVersion | None, ctx: GuardContext,
            seen: set[str], last: bool = True, starts: tuple[str, ...] = ()
            ) -> list[FoldRecord]:
    """The records the cache kept of a tree of this shape: of ``ctx``, and (``last``: a
    memory without home records, whose scan has no context of its own to start from) of
    the last context folded -- each once: ``seen`` holds the keys read before. When it
    gives none, those of ``ctx`` and of the rounds' first context in the tree folded last
    under the first slot of ``starts`` whose tree had another shape and gives any."""
    if cache is None or version is None:
        return []
    digests = [ctx.digest()]
    latest = cache.get(_ENTRY, _last_key(version.shape), _LAST_KIND, FOLDS) if last else None
    if isinstance(latest, str):
        digests.append(latest)
    found = _of_shape(cache, version.shape, digests, seen)
    if found:
        return found
    for slot in starts:
        pointed = cache.get(_ENTRY, _slot_key(slot), _SLOT_KIND, FOLDS)
        if isinstance(pointed, tuple) and len(pointed) == 2 and pointed[0] != version.shape:
            found = _of_shape(cache, pointed[0], [ctx.digest(), pointed[1]], seen)
            if found:
                return found
    return []


def _of_shape(cache: FactsCache, shape: str, digests: list[str], seen: set[str]
              ) -> list[FoldRecord]:
    """The records of the contexts of ``digests`` in a tree of the shape ``shape`` (each
    once: ``seen``)."""
    return [r for digest in digests if (r := _record(cache, shape, digest, seen)) is not None]


def _record(cache: FactsCache, shape: str, digest: str, seen: set[str]) -> FoldRecord | None:
    """The record the cache kept of the context of ``digest`` in a tree of the shape
    ``shape`` (None: none, or its key is in ``seen``, the keys read before; it is added
    there)."""
    key = _record_key(shape, digest)
    if key in seen:
        return None
    seen.add(key)
    known = cache.get(_ENTRY, key, _RECORD_KIND, FOLDS)
    return known if isinstance(known, FoldRecord) else None


def _shape_of(cache: FactsCache | None, version: TreeVersion) -> TreeShape | None:
    """The shape of the tree ``version`` (its own, or the one the cache kept of its shape
    digest; None: not known)."""
    if version.files:
        return version.tree_shape()
    known = cache.get(_ENTRY, _shape_key(version.shape), _SHAPE_KIND, FOLDS) \
        if cache is not None else None
    if not (isinstance(known, tuple) and len(known) == 2):
        return None
    files, extensions = known
    return tree_shape(files, dict(extensions))


def _record_key(shape: str, ctx_digest: str) -> str:
    return hashlib.sha256(f"{shape}\0{ctx_digest}\0record".encode()).hexdigest()


def _last_key(shape: str) -> str:
    return hashlib.sha256(f"{shape}\0last record".encode()).hexdigest()


def _shape_key(shape: str) -> str:
    return hashlib.sha256(f"{shape}\0shape".encode()).hexdigest()


def _slot_key(slot: str) -> str:
    return hashlib.sha256(f"{slot}\0last shape".encode()).hexdigest()


_SHAPE_KIND = "fold-shape"
_SLOT_KIND = "fold-slot-shape"
_LAST_KIND = "fold-record-last"
_RECORD_KIND = "fold-record"
_ENTRY, _KIND = "<folds>", "folds"  # their facts-cache key
FOLDS = Query("folds", code=("analyzer.decide",))


def fold_module(module: str, facts: PythonFacts, index: ModuleIndex, ctx: GuardContext,
                evaluator: Evaluator | None = None,
                branches: Sequence[Branch] | None = None) -> list[DeadRegion]:
    """Dead regions of one module, in source order (``branches``: its branches, already
    unpacked)."""
    ev = evaluator or Evaluator(index, ctx)
    regions: list[DeadRegion] = []
    dead_bytes: list[tuple[int, int]] = []
    for branch in branches if branches is not None else getattr(facts, "branches", ()):
        if any(s <= branch.start_byte < e for s, e in dead_bytes):
            continue  # nested in a dead region: already gone
        if branch.kind == "if":
            found = _fold_if(module, branch, ev, ctx)
        elif branch.kind == "ifexp":
            found = _fold_ifexp(module, branch, ev)
        elif branch.kind == "try_import":
            found = _fold_try(module, branch, facts, index, ctx, ev)
        else:
            found = []
        for region, span in found:
            regions.append(region)
            dead_bytes.append(span)
    return regions


# -- if statements ---------------------------------------------------------------------------
def _fold_if(module: str, b: Branch, ev: Evaluator, ctx: GuardContext
             ) -> list[tuple[DeadRegion, tuple[int, int]]]:
    clauses = b.clauses
    dead: list[bool] = []
    why: list[str] = []
    taken: str | None = None  # reason of the first clause known True
    taken_idx = -1
    for i, c in enumerate(clauses):
        if taken is not None:
            dead.append(True)
            why.append(f"{_header(c)} unreachable: {taken}")
            continue
        ev.probes.add(("f", module, str(c.start_line)))
        forced = ctx.forced.get((module, c.start_line))
        if c.cond is None:  # else: dead only when a behaviour decision folds it
            dead.append(bool(forced))
            why.append(f"{_header(c)} folded ({forced})" if forced else "")
            continue
        value = False if forced else truth(ev.eval(module, b.scope, c.cond))
        notes = f" ({forced})" if forced else f" ({'; '.join(ev.used)})" if ev.used else ""
        if value is UNKNOWN:
            dead.append(False)
            why.append("")
        elif value:
            dead.append(False)
            why.append("")
            taken, taken_idx = f"{_header(c)} folds to True{notes}", i
        else:
            dead.append(True)
            why.append(f"{_header(c)} folds to False{notes}")
    if not any(dead):
        return []
    if not ctx.fold_type_checking and any(  # checked only once something folds: it rarely does
            c.cond is not None and _mentions(c.cond, "TYPE_CHECKING") for c in clauses):
        return []
    stmt = (b.start_line, b.end_line)
    out: list[tuple[DeadRegion, tuple[int, int]]] = []

    def add(first: int, last: int, start: int, end: int, rewrite: FoldRewrite,
            keep: tuple[int, int] | None, dead_last: int | None = None) -> None:
        """Clauses ``first``-``last`` give the reason; those to ``dead_last`` (default
        ``last``) go, and branches nested in them are not folded again."""
        reason = "; ".join(dict.fromkeys(w for w in why[first:last + 1] if w))
        gone = clauses[last if dead_last is None else dead_last]
        out.append((DeadRegion(start, end, reason, rewrite, stmt, keep, b.scope),
                    (clauses[first].start_byte, gone.end_byte)))

    head = clauses[0]
    if all(dead):
        add(0, len(clauses) - 1, b.start_line, b.end_line, "delete", None)
        return out
    if not dead[0]:
        if taken_idx == 0:
            add(1, len(clauses) - 1, clauses[1].start_line, b.end_line, "unwrap_if",
                (head.body_start_line, head.end_line))
            return out
        first_live = 0
    else:
        first_live = dead.index(False)
        live = clauses[first_live]
        if live.kind == "else":
            add(0, first_live, b.start_line, live.body_start_line - 1, "unwrap_else",
                (live.body_start_line, live.end_line), first_live - 1)  # the else body stays
            return out
        add(0, first_live - 1, b.start_line, live.start_line - 1, "promote_elif", None)
    i = first_live + 1
    while i < len(clauses):  # runs of dead clauses after the first live one
        if not dead[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(clauses) and dead[j + 1]:
            j += 1
        add(i, j, clauses[i].start_line, clauses[j].end_line, "delete_clause", None)
        i = j + 1
    return out


def _header(c: Clause) -> str:
    return "else:" if c.cond is None else f"{c.kind} {show(c.cond)}:"


def _mentions(cond: Cond, name: str) -> bool:
    if cond.kind == "name" and cond.value.split(".")[-1] == name:
        return True
    return any(_mentions(c, name) for c in cond.children)


# -- conditional expressions -----------------------------------------------------------------
def _fold_ifexp(module: str, b: Branch, ev: Evaluator
                ) -> list[tuple[DeadRegion, tuple[int, int]]]:
    if len(b.clauses) != 2 or b.clauses[0].cond is None:
        return []
    body, other = b.clauses
    value = truth(ev.eval(module, b.scope, b.clauses[0].cond))
    if value is UNKNOWN:
        return []
    dead, kept = (other, body) if value else (body, other)
    notes = f" ({'; '.join(ev.used)})" if ev.used else ""
    reason = f"... if {show(body.cond or Cond('unknown'))} else ...: folds to {value}{notes}"
    partial = not dead.own_lines
    region = DeadRegion(dead.start_line, dead.end_line, reason, "ifexp",
                        (b.start_line, b.end_line), (kept.start_line, kept.end_line), b.scope,
                        ((dead.start_byte, dead.end_byte), (kept.start_byte, kept.end_byte),
                         (b.start_byte, b.end_byte)), partial, reads=dead.reads)
    return [(region, (dead.start_byte, dead.end_byte))]


def arm_region(b: Branch, dead_arm: int, note: str) -> DeadRegion:
    """A conditional expression losing one arm for a reason other than its condition
    (``dead_arm`` 0: the ``x if ...`` arm goes, 2: the ``else x`` arm goes)."""
    body, other = b.clauses
    dead, kept = (body, other) if dead_arm == 0 else (other, body)
    value = dead_arm != 0
    reason = (f"... if {show(body.cond or Cond('unknown'))} else ...: folds to {value} "
              f"({note})")
    return DeadRegion(dead.start_line, dead.end_line, reason, "ifexp",
                      (b.start_line, b.end_line), (kept.start_line, kept.end_line), b.scope,
                      ((dead.start_byte, dead.end_byte), (kept.start_byte, kept.end_byte),
                       (b.start_byte, b.end_byte)), not dead.own_lines, reads=dead.reads)


# -- try / except ImportError ----------------------------------------------------------------
def _fold_try(module: str, b: Branch, facts: PythonFacts, index: ModuleIndex,
              ctx: GuardContext, ev: Evaluator) -> list[tuple[DeadRegion, tuple[int, int]]]:
    ev.probes.add(("I",))
    if not ctx.dead_imports or any(c.kind == "finally" for c in b.clauses) or getattr(
            b, "handler_raises", False) or getattr(b, "handler_binds", False):
        # a handler that raises turns the failed import into a failed import; one that binds
        # the exception (`except ImportError as e:`) cannot stand in for the statement
        return []
    keep = next((c for c in b.clauses if c.kind == "except" and _catches(c.cond)), None)
    if keep is None:
        return []
    imports = set(b.import_lines)
    by_line: dict[int, list[ImportFact]] = {}
    for fact in facts.imports:
        if fact.start_line in imports and fact.scope == b.scope:
            by_line.setdefault(fact.start_line, []).append(fact)
    failing: str | None = None
    for line in b.body_lines:  # only imports may run before the failing one
        if line not in imports:
            break
        failing = next((m for f in by_line.get(line, []) for m in _names(module, f, index)
                        if _dead_probed(m, ctx.dead_imports, ev)), None)
        if failing is not None:
            break
    if failing is None:
        return []
    reason = f"try: import {failing}: module will not exist (dead import); except runs"
    stmt = (b.start_line, b.end_line)
    kept = (keep.body_start_line, keep.end_line)
    out = [(DeadRegion(b.start_line, keep.body_start_line - 1, reason, "try_unwrap", stmt,
                       kept, b.scope, needs=failing), (b.start_byte, keep.start_byte))]
    if keep.end_line < b.end_line:
        out.append((DeadRegion(keep.end_line + 1, b.end_line, reason, "try_unwrap", stmt, kept,
                               b.scope, needs=failing), (keep.end_byte, b.end_byte)))
    return out


def _catches(cond: Cond | None) -> bool:
    if cond is None:
        return True  # bare except
    names = [cond] if cond.kind == "name" else list(cond.children)
    return any(n.kind == "name" and n.value.split(".")[-1] in _CATCHES_IMPORT for n in names)


def _names(module: str, fact: ImportFact, index: ModuleIndex) -> list[str]:
    absolute = index.absolute(module, fact)
    if absolute is None:
        return []
    return [absolute, *(f"{absolute}.{n.name}" for n in fact.names if n.name != "*")]


def _dead_probed(name: str, dead: frozenset[str], ev: Evaluator) -> bool:
    ev.probes.add(("i", name))
    return _dead(name, dead)


def _dead(name: str, dead: frozenset[str]) -> bool:
    """``name`` is one of ``dead``, lies under one, or matches one as a pattern."""
    rx = dotted_prefixes(dead)
    return rx is not None and rx.match(name)


# -- display ---------------------------------------------------------------------------------
def show(cond: Cond) -> str:
    """Short source-like text of a condition, for reasons."""
    k = cond.kind
    if k in ("name", "const"):
        return cond.value
    if k == "str":
        return repr(cond.value)
    if k == "strs":
        return "(" + ", ".join(repr(a) for a in cond.args) + ")"
    if k == "tuple":
        return "(" + ", ".join(show(c) for c in cond.children) + ("," if len(
            cond.children) == 1 else "") + ")"
    if k == "call":
        args = [repr(a) for a in cond.args] + [show(c) for c in cond.children]
        return f"{cond.value}({', '.join(args)})"
    if k == "not":
        return f"not {_paren(cond.children[0])}" if cond.children else "not ?"
    if k in ("and", "or"):
        return f" {k} ".join(_paren(c) for c in cond.children)
    if k == "cmp" and len(cond.children) == 2:
        return f"{_paren(cond.children[0])} {cond.value} {_paren(cond.children[1])}"
    return cond.value or "?"


def _paren(cond: Cond) -> str:
    text = show(cond)
    return f"({text})" if cond.kind in ("and", "or", "cmp") else text
