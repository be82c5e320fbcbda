"""Plan stage, soundness: simulate the plan's Python edits and list the deletions that would
break code that remains.

The plan deletes what nothing live reaches; this check asks the converse question of what
stays: does every name that remaining code reads still have a binding? For each Python file
the plan edits, the deletions are simulated on the file's syntax tree (``ast``: parsed, never
run) and pyflakes is run before and after: a name that becomes undefined (a read of an import
the plan removes, a string annotation naming a ``TYPE_CHECKING`` import, a method using a name
bound only in a folded branch) convicts the deletions that removed its bindings. Across files,
module-level names and class attributes the edits remove (an enum member, a function, a name
assigned only in a folded branch) are looked up in every remaining import and attribute chain
of the tree (``from m import name``, ``Enum.MEMBER``); a module the plan deletes that remaining
code imports is reported too.

Output: ``Conflict`` values, each naming the deletion to cancel or the node to keep; the scan
feeds them back into the next round of liveness and planning until none is left (a fixpoint:
every round only keeps more).
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from pyflakes import checker as pyflakes_checker
from pyflakes import messages as pyflakes_messages

from analyzer.analysis.liveness import Liveness
from analyzer.config.globs import identifier_matches
from analyzer.decide.guards import DeadRegion, arm_region
from analyzer.extract.python import (
    TRY_IMPORT_ERROR,
    TYPE_CHECKING,
    Branch,
    Clause,
    Cond,
    ProducedString,
    PythonFacts,
)
from analyzer.model import EXPRESSION_REWRITES, Deletion, DeletionKind, Plan, Ranges
from analyzer.nodes import Graph, module_node
from analyzer.resolve.python import ModuleIndex, PyModule

# (path, bytes, the file's edits) -> the file simulated
Simulator = Callable[[str, bytes, tuple[Deletion, ...]], "FileSim"]

_UNDEFINED = (pyflakes_messages.UndefinedName, pyflakes_messages.UndefinedLocal,
              pyflakes_messages.UndefinedExport)
_STATEMENT_EDITS: tuple[DeletionKind, ...] = ("delete_range", "fold_branch")


@dataclass(frozen=True)
class Conflict:
    """A deletion that would leave remaining code reading a name that no longer exists."""

    path: str  # where the broken read is
    line: int
    what: str
    deletion: Deletion | None = None  # cancel this deletion ...
    root: str | None = None  # ... or keep this graph node


@dataclass
class FileSim:
    """One file before and after its simulated edits."""

    undefined_before: Counter[str] = field(default_factory=Counter)
    undefined_after: Counter[str] = field(default_factory=Counter)
    undefined_lines: dict[str, int] = field(default_factory=dict)
    module_names_lost: set[str] = field(default_factory=set)
    class_attrs_lost: dict[str, set[str]] = field(default_factory=dict)
    # name -> deletions whose removed code bound it (any level)
    binders: dict[str, list[Deletion]] = field(default_factory=lambda: defaultdict(list))
    parsed: bool = True
    edits: tuple[Deletion, ...] = ()


@dataclass(frozen=True)
class OriginalLint:
    """What the check needs of a file as it is, before any edit: pyflakes' undefined names,
    its module-level names (and how often each is bound outside branches) and each class's
    attributes. A function of the file's bytes alone, so it is computed once per file."""

    undefined: Counter[str]
    module_names: frozenset[str]
    binding_counts: Counter[str]
    class_attrs: dict[str, frozenset[str]]


def lint_original(source: bytes, path: str) -> OriginalLint | None:
    """The :class:`OriginalLint` of ``source``, or None when it does not parse."""
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError):
        return None
    return OriginalLint(undefined_names(tree, path, None), frozenset(module_names(tree)),
                        _module_binding_counts(tree),
                        {c: frozenset(n) for c, n in class_attrs(tree).items()})


def simulate(source: bytes, edits: list[Deletion], path: str,
             original: OriginalLint | None = None) -> FileSim:
    """The effect of ``edits`` (one file's deletions) on the names the file binds and reads;
    ``original`` is the file's :func:`lint_original` when the caller has it already."""
    sim = FileSim(edits=tuple(edits))
    before = original if original is not None else lint_original(source, path)
    if before is None:
        sim.parsed = False
        return sim
    after = ast.parse(source, filename=path)
    _remove(after, edits, sim)
    sim.undefined_before = Counter(before.undefined)
    sim.undefined_after = undefined_names(after, path, sim.undefined_lines)
    sim.module_names_lost = set(before.module_names - module_names(after))
    # a name that keeps a binding but lost one that runs (not in a folded branch): on the
    # path of the lost one it is now unbound (`if ok: from ext import Meta` / `else: class
    # Meta` loses its import); only the deletions that were no fold are to blame
    new_counts = _module_binding_counts(after)
    for name, n in before.binding_counts.items():
        if 0 < new_counts.get(name, 0) < n:
            culprits = [d for d in sim.binders.get(name, ()) if d.kind != "fold_branch"]
            if culprits:
                sim.module_names_lost.add(name)
                sim.binders[name] = culprits
    new_attrs = class_attrs(after)
    for cls, names in before.class_attrs.items():
        lost = names - new_attrs.get(cls, set())
        if lost:
            sim.class_attrs_lost[cls] = set(lost)
    return sim


def _simulate(path: str, source: bytes, edits: tuple[Deletion, ...]) -> FileSim:
    return simulate(source, list(edits), path)


def _span(node: ast.stmt) -> tuple[int, int]:
    start = node.lineno
    for dec in getattr(node, "decorator_list", ()):
        start = min(start, dec.lineno)
    return start, node.end_lineno or node.lineno


def _remove(tree: ast.Module, edits: list[Deletion], sim: FileSim) -> None:
    ranges = [(d.start_line or 0, d.end_line or 0, d) for d in edits
              if d.kind in _STATEMENT_EDITS and d.rewrite not in EXPRESSION_REWRITES
              and d.start_line]
    names_at = {(d.start_line or 0): d for d in edits if d.kind == "remove_import_names"}

    def owner(start: int, end: int) -> Deletion | None:
        for s, e, d in ranges:
            if s <= start and end <= e:
                return d
        return None

    def visit(body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            start, end = _span(stmt)
            d = owner(start, end)
            if d is not None:
                for name in _bound_names(stmt):
                    sim.binders[name].append(d)
                continue
            if isinstance(stmt, ast.ImportFrom) and stmt.lineno in names_at:
                d = names_at[stmt.lineno]
                keep = [a for a in stmt.names if (a.asname or a.name) not in d.names]
                for a in stmt.names:
                    if (a.asname or a.name) in d.names:
                        sim.binders[a.asname or a.name].append(d)
                if not keep:
                    continue
                stmt.names = keep
            for attr in ("body", "orelse", "finalbody"):
                block = getattr(stmt, attr, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    setattr(stmt, attr, visit(block))
            for handler in getattr(stmt, "handlers", ()):
                handler.body = visit(handler.body)
            for case in getattr(stmt, "cases", ()):
                case.body = visit(case.body)
            out.append(stmt)
        return out

    tree.body = visit(tree.body)
    _remove_elements(tree, edits)
    _fold_ifexps(tree, edits)
    _fold_comparisons(tree, edits)


def _fold_ifexps(tree: ast.Module, edits: list[Deletion]) -> None:
    """Conditional expressions the plan folds become their kept arm in the simulated tree."""
    folds = [d for d in edits if d.rewrite == "ifexp" and d.statement and d.keep]
    if not folds:
        return

    def span(node: ast.AST) -> tuple[int, int]:
        return getattr(node, "lineno", 0), getattr(node, "end_lineno", 0) or 0

    class Fold(ast.NodeTransformer):
        def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
            node = self.generic_visit(node)  # type: ignore[assignment]
            for d in folds:
                if span(node) != d.statement:
                    continue
                dead = (d.start_line or 0, d.end_line or 0)
                if span(node.body) == d.keep and span(node.orelse) == dead:
                    return node.body
                if span(node.orelse) == d.keep and span(node.body) == dead:
                    return node.orelse
            return node

    Fold().visit(tree)


def _fold_comparisons(tree: ast.Module, edits: list[Deletion]) -> None:
    """Comparisons with a dropped enum member the plan folds become their value."""
    folds = {(d.start_line, _squeeze(d.names[0])): d.names[1] == "True" for d in edits
             if d.rewrite == "compare" and len(d.names) >= 2}
    if not folds:
        return

    class Fold(ast.NodeTransformer):
        def visit_Compare(self, node: ast.Compare) -> ast.AST:
            node = self.generic_visit(node)  # type: ignore[assignment]
            value = folds.get((node.lineno, _squeeze(ast.unparse(node))))
            if value is None:
                return node
            return ast.copy_location(ast.Constant(value), node)

    Fold().visit(tree)


def _squeeze(text: str) -> str:
    return "".join(text.split())


def _remove_elements(tree: ast.Module, edits: list[Deletion]) -> None:
    """Registry entries the plan removes from a collection (a dict entry on lines of its
    own, an element sharing its line): gone from the simulated tree too."""
    spans = [(d.start_line or 0, d.end_line or 0) for d in edits
             if d.category == "registry-entry" and d.kind == "delete_range" and d.start_line]
    elements = {(d.start_line or 0, n) for d in edits if d.kind == "remove_list_element"
                for n in d.names}
    if not spans and not elements:
        return

    def gone(first: ast.AST, last: ast.AST) -> bool:
        start, end = getattr(first, "lineno", 0), getattr(last, "end_lineno", 0) or 0
        return any(s <= start and end <= e for s, e in spans)

    def named(node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):  # a member in a display of chains
            return (node.lineno, ast.unparse(node)) in elements
        return isinstance(node, ast.Constant) and isinstance(node.value, str) and \
            (node.lineno, node.value) in elements

    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            pairs = [(k, v) for k, v in zip(node.keys, node.values, strict=True)
                     if not (k is not None and (gone(k, v) or named(k)))]
            node.keys = [k for k, _ in pairs]
            node.values = [v for _, v in pairs]
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            node.elts = [e for e in node.elts if not (gone(e, e) or named(e))]


def _bound_names(node: ast.AST) -> set[str]:
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            out.add(sub.id)
        elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(sub.name)
        elif isinstance(sub, ast.alias):
            out.add(sub.asname or sub.name.split(".")[0])
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            out.add(sub.name)
    return out


def undefined_names(tree: ast.Module, path: str, lines: dict[str, int] | None) -> Counter[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lint = pyflakes_checker.Checker(tree, filename=path)
    found = lint.messages
    # the checker holds itself in a cycle (bound handlers) and every node in `_parents`:
    # break it, so the tree is freed at once (scans run with the cyclic collector paused)
    for scope in lint.deadScopes:  # scopes and their bindings point at each other
        scope.clear()
    lint._nodeHandlers.clear()  # type: ignore[attr-defined]  # private, not in types-pyflakes
    lint._parents.clear()  # type: ignore[attr-defined]  # private, not in types-pyflakes
    lint.deadScopes.clear()
    out: Counter[str] = Counter()
    for m in found:
        if isinstance(m, _UNDEFINED):
            name = str(m.message_args[0])
            out[name] += 1
            if lines is not None:
                lines.setdefault(name, m.lineno)
    return out


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a block and of the if/try/with/for blocks in it, not of defs."""
    stack = list(body)
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for attr in ("body", "orelse", "finalbody"):
            block = getattr(stmt, attr, None)
            if isinstance(block, list):
                stack.extend(s for s in block if isinstance(s, ast.stmt))
        for handler in getattr(stmt, "handlers", ()):
            stack.extend(handler.body)
        for case in getattr(stmt, "cases", ()):
            stack.extend(case.body)


def _names_of_block(body: list[ast.stmt]) -> set[str]:
    out: set[str] = set()
    for stmt in _top_level(body):
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(stmt.name)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            out.update(a.asname or a.name.split(".")[0] for a in stmt.names if a.name != "*")
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For
                        | ast.AsyncFor | ast.With | ast.AsyncWith):
            targets = (stmt.targets if isinstance(stmt, ast.Assign)
                       else [i.optional_vars for i in stmt.items if i.optional_vars]
                       if isinstance(stmt, ast.With | ast.AsyncWith) else [stmt.target])
            for t in targets:
                out.update(n.id for n in ast.walk(t)
                           if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return out


def module_names(tree: ast.Module) -> set[str]:
    return _names_of_block(tree.body)


def _module_binding_counts(tree: ast.Module) -> Counter[str]:
    counts: Counter[str] = Counter()
    for stmt in _top_level(tree.body):
        counts.update(_names_of_block([stmt]) if not isinstance(
            stmt, ast.If | ast.Try | ast.With | ast.For | ast.While) else ())
    return counts


def class_attrs(tree: ast.Module) -> dict[str, set[str]]:
    return {stmt.name: _names_of_block(stmt.body) for stmt in tree.body
            if isinstance(stmt, ast.ClassDef)}


# -- the whole plan ----------------------------------------------------------------------------
def edits_by_path(plan: Plan) -> dict[str, tuple[Deletion, ...]]:
    """Each Python file the plan edits (not deletes) -> its edits, in plan order: what
    :func:`check_plan` simulates."""
    by_path: dict[str, list[Deletion]] = defaultdict(list)
    for d in plan.deletions:
        if d.kind != "delete_file" and d.path.endswith((".py", ".pyi")):
            by_path[d.path].append(d)
    return {path: tuple(edits) for path, edits in by_path.items()}


def check_plan(plan: Plan, index: ModuleIndex, sources: dict[str, bytes],
               simulated: Simulator | None = None) -> list[Conflict]:
    """Conflicts of ``plan`` with the code it leaves; ``simulated`` answers a file's
    simulation (``analyzer.plan.check_cache.CheckCache.simulation`` keeps them across rounds
    and scans; by default each is computed)."""
    deleted_files = {d.path for d in plan.deletions if d.kind == "delete_file"}
    by_path = edits_by_path(plan)
    conflicts: list[Conflict] = []
    lost_names: dict[str, set[str]] = {}  # module -> module-level names removed
    lost_attrs: dict[tuple[str, str], set[str]] = {}  # (module, class) -> attributes removed
    file_sims: dict[str, FileSim] = {}
    for path, edits in sorted(by_path.items()):
        if path not in sources:
            continue
        sim = file_sims[path] = (simulated or _simulate)(path, sources[path], edits)
        for name, n in sim.undefined_after.items():
            if n <= sim.undefined_before.get(name, 0):
                continue
            line = sim.undefined_lines.get(name, 0)
            culprits = sim.binders.get(name) or edits
            conflicts.extend(Conflict(path, line, f"name {name!r} would be undefined", d)
                             for d in dict.fromkeys(culprits))
        module = index.by_path.get(path)
        if module is not None:
            if sim.module_names_lost:
                lost_names[module] = sim.module_names_lost
            for cls, attrs in sim.class_attrs_lost.items():
                lost_attrs[(module, cls)] = attrs
    removed = {p: _removed_ranges(ds) for p, ds in by_path.items()}
    elements = _removed_elements(plan.deletions)
    dropped_names = {(d.path, d.start_line): set(d.names) for d in plan.deletions
                     if d.kind == "remove_import_names"}
    deleted_modules = {index.by_path[p] for p in deleted_files if p in index.by_path}
    watched = set().union(*lost_names.values(), *lost_attrs.values()) if (
        lost_names or lost_attrs) else set()
    for name in sorted(index.modules):
        mod = index.modules[name]
        if mod.path in deleted_files:
            continue
        gone = removed.get(mod.path)
        conflicts.extend(import_conflicts(index, mod, gone, deleted_modules, lost_names,
                                           file_sims, dropped_names))
        if watched:
            conflicts.extend(chain_conflicts(index, mod, gone, watched, lost_names, lost_attrs,
                                              file_sims, elements.get(mod.path, set())))
    conflicts.extend(member_conflicts(plan, index, deleted_files, removed))
    return list(dict.fromkeys(conflicts))


def member_conflicts(plan: Plan, index: ModuleIndex, deleted_files: set[str],
                     removed: dict[str, Ranges]) -> list[Conflict]:
    """A deleted method whose name code that remains still reads anywhere in the tree
    (``x.name``, a string spelling it, a ``getattr`` skeleton matching it; or an enumeration
    of attributes in its module) comes back: the read may be of it."""
    lost: dict[str, list[Deletion]] = defaultdict(list)
    lost_in: dict[str, list[Deletion]] = defaultdict(list)  # path -> method deletions
    for d in plan.deletions:
        if d.category == "python-symbol" and d.symbol and "." in d.symbol.partition(":")[2]:
            lost[d.symbol.rpartition(".")[2]].append(d)
            lost_in[d.path].append(d)
    if not lost:
        return []
    out: list[Conflict] = []
    for name in sorted(index.modules):
        mod = index.modules[name]
        if mod.path in deleted_files:
            continue
        gone = removed.get(mod.path)
        for use in mod.facts.member_uses:
            if use.name == "*":
                hit = lost_in.get(mod.path, [])
            elif "*" in use.name:
                hit = [d for n, ds in lost.items() if fnmatchcase(n, use.name) for d in ds]
            else:
                hit = lost.get(use.name, [])
            if not hit:
                continue
            line = next((ln for ln in use.lines if (gone is None or not gone.covers(ln, ln))
                         and not index.dead_read(name, "." + use.name, ln)), None)
            if line is None:
                continue
            out.extend(Conflict(mod.path, line, f"reads .{use.name}: the method may be it", d)
                       for d in hit)
    return out


def _removed_ranges(edits: Sequence[Deletion]) -> Ranges:
    out = Ranges()
    for d in edits:
        if d.kind in _STATEMENT_EDITS and d.rewrite not in EXPRESSION_REWRITES and d.start_line:
            out.add(d.start_line, d.end_line or d.start_line)
    return out


def _removed_elements(deletions: list[Deletion]) -> dict[str, set[tuple[int, str]]]:
    """path -> (line, chain) of the chains the plan removes: elements of displays, members
    in comparisons it folds."""
    out: dict[str, set[tuple[int, str]]] = defaultdict(set)
    for d in deletions:
        if d.kind == "remove_list_element" and d.start_line:
            out[d.path].update((d.start_line, n) for n in d.names)
        elif d.rewrite == "compare" and d.start_line and len(d.names) == 3:
            out[d.path].add((d.start_line, d.names[2]))  # the member's chain, folded away
    return out


def _culprits(index: ModuleIndex, module: str, name: str,
              file_sims: dict[str, FileSim]) -> list[Deletion | None]:
    """The deletions that removed ``name`` from ``module``: those whose removed code bound
    it, else every edit of the file (sound when the binding cannot be told); ``[None]`` when
    nothing is known (verify, after the fact)."""
    sim = file_sims.get(index.modules[module].path)
    if sim is None:
        return [None]
    found: list[Deletion | None] = list(dict.fromkeys(sim.binders.get(name, ()))) \
        or list(sim.edits)
    return found or [None]


def import_conflicts(index: ModuleIndex, mod: PyModule, gone: Ranges | None,
                      deleted_modules: set[str], lost_names: dict[str, set[str]],
                      file_sims: dict[str, FileSim],
                      dropped_names: dict[tuple[str, int | None], set[str]]
                      ) -> list[Conflict]:
    out: list[Conflict] = []
    for fact in mod.facts.imports:
        dropped = dropped_names.get((mod.path, fact.start_line), set())
        if TYPE_CHECKING in fact.context or TRY_IMPORT_ERROR in fact.context:
            continue
        if gone is not None and gone.covers(fact.start_line, fact.end_line):
            continue
        absolute = index.absolute(mod.name, fact)
        if absolute is None or not index.is_internal(absolute):
            continue
        parts = absolute.split(".")
        for i in range(1, len(parts) + 1):
            prefix = ".".join(parts[:i])
            if prefix in deleted_modules:
                out.append(Conflict(mod.path, fact.start_line, f"imports {prefix}, which the "
                                    "plan deletes", root=module_node(prefix)))
        if not fact.is_from:
            continue
        for imported in fact.names:
            if (imported.alias or imported.name) in dropped:
                continue
            sub = f"{absolute}.{imported.name}"
            if sub in deleted_modules:
                out.append(Conflict(mod.path, fact.start_line, f"imports {sub}, which the "
                                    "plan deletes", root=module_node(sub)))
            elif imported.name in lost_names.get(absolute, ()) and not index.is_module(sub):
                what = f"from {absolute} import {imported.name}: the name would be gone"
                out.extend(Conflict(mod.path, fact.start_line, what, d)
                           for d in _culprits(index, absolute, imported.name, file_sims))
    return out


def chain_conflicts(index: ModuleIndex, mod: PyModule, gone: Ranges | None, watched: set[str],
                     lost_names: dict[str, set[str]],
                     lost_attrs: dict[tuple[str, str], set[str]],
                     file_sims: dict[str, FileSim],
                     elements: set[tuple[int, str]] | frozenset[tuple[int, str]] = frozenset()
                     ) -> list[Conflict]:
    """Chains code that stays reads through a name or class attribute the plan removes
    (``elements``: (line, chain) of display elements removed, which read nothing after)."""
    out: list[Conflict] = []
    for ref in mod.facts.references:
        parts = ref.chain.split(".")
        if len(parts) < 2 or watched.isdisjoint(parts[1:]):
            continue
        if all((gone is not None and gone.covers(ln, ln)) or (ln, ref.chain) in elements
               for ln in (ref.line, *ref.also)):
            continue
        for target, _type_only, _line in index.resolve_chain_all(mod.name, ref.scope, parts[0]):
            current = target
            for part in parts[1:]:
                if current.kind == "module":
                    if part in lost_names.get(current.module, ()) \
                            and not index.is_module(f"{current.module}.{part}"):
                        what = f"{current.module}.{part} would be gone"
                        out.extend(Conflict(mod.path, ref.line, what, d) for d in
                                   _culprits(index, current.module, part, file_sims))
                        break
                    current = index.resolve_attr(current.module, part)
                    continue
                if current.kind == "symbol" and current.name and \
                        part in lost_attrs.get((current.module, current.name), ()):
                    what = f"{current.name}.{part} would be gone"
                    out.extend(Conflict(mod.path, ref.line, what, d) for d in
                               _culprits(index, current.module, part, file_sims))
                break
    return out


def produced_keys(plan: Plan, index: ModuleIndex, live: Liveness, dropped: frozenset[str],
                  forced: frozenset[tuple[str, int]] = frozenset(),
                  own: frozenset[str] = frozenset(), graph: Graph | None = None,
                  own_names: tuple[str, ...] = (), peripheral: frozenset[str] = frozenset(),
                  int_domains: tuple[tuple[str, frozenset[int]], ...] = ()
                  ) -> tuple[dict[str, str], dict[str, list[DeadRegion]],
                             dict[tuple[str, int], tuple[str, str]], dict[str, str]]:
    """Dropped registry keys that live code still produces as a value (assigns, defaults,
    passes or returns ``"fa3"``): such a key may be selected at run time. Where the value is
    one arm of a conditional expression whose other arm is no dropped key (``"fa3" if
    is_fa3_supported() else "triton"``), that arm goes instead (a behaviour decision, named
    in its reason). Likewise an ``if``/``elif`` clause whose every statement assigns dropped
    keys, when a later clause of the same statement assigns the same targets (``elif sm90:
    self.attention_backend = "fa3"`` / ``else: self.attention_backend = "triton"``): that
    clause never runs. Elsewhere the key is blocked: its registrations stay. Returns (key ->
    ``path:line: target = 'key'`` of the first blocking producer, module -> arm regions,
    (module, clause line) -> (key, why), peripheral path -> why it goes: a test or example
    (``peripheral``) that selects a dropped key goes with the feature instead of blocking
    it). Producers in code the plan deletes do not count, nor
    those in dead methods (with ``graph``) or in the dropped features' own code (modules
    ``own``: the platform file that names its own device, `device_name = "npu"`; functions
    and methods ``own_names`` match: `_find_quant_modelslim_config`); clauses in
    ``forced`` were folded already.

    Integer keys (``int_domains``: a domain's pattern, its dropped integers) are not
    distinctive the way ``"fa3"`` is: an integer counts as a producer only where it reaches a
    name of the domain (``fa_version = 3``, ``fa_version=3``, a default, or ``return 3`` in
    ``get_flash_attn_version`` for the pattern ``get_flash_attn_version()``). Such a key is
    blocked under its decimal text; its producers are never folded."""
    if not dropped and not int_domains:
        return {}, {}, {}, {}
    deleted_files = {d.path for d in plan.deletions if d.kind == "delete_file"}
    gone: dict[str, Ranges] = defaultdict(Ranges)
    folded_arms: set[tuple[str, int, int]] = set()
    for d in plan.deletions:
        if d.kind != "delete_file" and d.start_line and d.rewrite not in EXPRESSION_REWRITES:
            gone[d.path].add(d.start_line, d.end_line or d.start_line)
        elif d.rewrite == "ifexp" and d.start_line:
            folded_arms.add((d.path, d.start_line, d.end_line or d.start_line))
    blocked: dict[str, str] = {}
    arms: dict[str, list[DeadRegion]] = {}
    clauses: dict[tuple[str, int], tuple[str, str]] = {}
    selectors: dict[str, str] = {}
    for name in sorted(index.modules):
        mod = index.modules[name]
        if mod.path in deleted_files or name in own:
            continue
        produced = tuple(p for p in getattr(mod.facts, "produced", ()) if not p.integer)
        integers = tuple(p for p in getattr(mod.facts, "produced", ())
                         if p.integer and _int_key_of(p, int_domains))
        methods = _method_spans(mod, graph)
        by_arm = {(p.arm_of, p.arm): p.value for p in produced if p.arm_of >= 0}
        # an Enum member's value defines the member; it selects nothing
        members = {e.start_line for lit in getattr(mod.facts, "literals", ())
                   if lit.kind == "enum" for e in lit.entries}
        for p in (*produced, *integers):
            if (not p.integer and p.value not in dropped) or p.value in blocked:
                continue
            if p.line in members or gone[mod.path].covers(p.line, p.line):
                continue
            if not live.is_live(f"py:{name}:{p.scope}" if p.scope else f"py:{name}"):
                continue
            method = next((n for s, e, n in methods.get(p.scope, ()) if s <= p.line <= e), None)
            if method is not None and not live.is_live(method):
                continue
            owner = method.rpartition(".")[2] if method is not None else p.scope
            if own_names and owner and identifier_matches(owner, own_names):
                continue  # the dropped feature's own code selecting itself
            if p.integer:
                shown = f"{p.target} = {p.value}" if p.target else f"{p.scope}: return {p.value}"
                if mod.path in peripheral:
                    selectors.setdefault(mod.path, f"selects dropped key {p.value} "
                                                   f"(line {p.line}: {shown})")
                else:
                    blocked[p.value] = f"{mod.path}:{p.line}: {shown}"
                continue
            branch = next((b for b in mod.facts.branches if b.kind == "ifexp"
                           and b.start_byte == p.arm_of), None) if p.arm_of >= 0 else None
            if branch is not None and len(branch.clauses) == 2 and \
                    by_arm.get((p.arm_of, 2 - p.arm)) not in dropped:
                region = arm_region(branch, p.arm, f"the arm selects dropped key {p.value!r}")
                if (mod.path, region.start_line, region.end_line) not in folded_arms:
                    arms.setdefault(name, []).append(region)
                continue
            clause = _selecting_clause(mod.facts, p, produced, dropped)
            # a clause folded before whose producer still counts (its fold did not hold):
            # the key is blocked after all
            if clause is not None and (name, clause.start_line) not in forced:
                clauses.setdefault((name, clause.start_line), (p.value, (
                    f"it only selects dropped key {p.value!r}; another clause selects "
                    "instead: a behaviour decision")))
                continue
            shown = f"{p.target} = {p.value!r}" if p.target else f"return {p.value!r}"
            if mod.path in peripheral:  # a test or example of the dropped feature: it goes
                selectors.setdefault(mod.path, f"selects dropped key {p.value!r} "
                                               f"(line {p.line}: {shown})")
                continue
            blocked[p.value] = f"{mod.path}:{p.line}: {shown}"
    # a key blocked anyway keeps its clauses: folding them would change behaviour for nothing
    return blocked, arms, {k: v for k, v in clauses.items() if v[0] not in blocked}, selectors


def _int_key_of(p: ProducedString, int_domains: tuple[tuple[str, frozenset[int]], ...]
                ) -> bool:
    """Integer producer ``p`` hands a dropped integer key to a name of its domain: the last
    name it reaches (``fa_version`` of ``self.fa_version = 3``, of the keyword ``fa_version=3``
    and of a parameter default; ``f()`` for ``return 3`` in function ``f``) matches the last
    name of a domain's pattern. Matching by the last name alone over-counts (a local
    ``fa_version`` that is not the attribute), which only blocks more."""
    if p.kind == "return":
        last = p.scope.rpartition(".")[2] + "()" if p.scope else ""
    else:
        last = p.target.rpartition(".")[2]
    if not last:
        return False
    value = int(p.value)
    return any(value in ints and fnmatchcase(last, pattern.rpartition(".")[2])
               for pattern, ints in int_domains)


def _method_spans(mod: PyModule, graph: Graph | None
                  ) -> dict[str, list[tuple[int, int, str]]]:
    """Class -> (first, last line, node) of its methods that are graph nodes."""
    out: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    if graph is None:
        return out
    for m in mod.facts.method_defs:
        node = f"py:{mod.name}:{m.cls}.{m.name}"
        data = graph.nodes.get(node)
        if data is not None and data.get("start_line") == m.start_line:
            out[m.cls].append((m.start_line, m.end_line, node))
    return out


def _selecting_clause(facts: PythonFacts, p: ProducedString,
                      produced: tuple[ProducedString, ...], dropped: frozenset[str]
                      ) -> Clause | None:
    """The clause around producer ``p`` whose every statement assigns string values, a
    dropped key among them, when a later clause of its statement assigns the same targets, or
    when it is the final ``else``, an earlier clause assigns them and an enclosing condition
    reads them (``if self.attention_backend is None: if sm100: ... = "triton"`` / ``else: ...
    = "fa3"``); else None."""
    best: tuple[Branch, int] | None = None
    for b in facts.branches:
        if b.kind != "if" or len(b.clauses) < 2:
            continue
        for i, c in enumerate(b.clauses):
            if c.body_start_line <= p.line <= c.end_line and (
                    best is None or c.body_start_line > best[0].clauses[best[1]].body_start_line):
                best = (b, i)
    if best is None:
        return None
    branch, i = best
    clause = branch.clauses[i]
    if not clause.body_stmts:
        return None
    at = {line: [q for q in produced if q.line == line and q.kind == "assign"]
          for line in clause.body_stmts}
    # each statement assigns a dropped key (a tuple assignment may carry companions along:
    # `self.attention_backend, platform = "fa3", "sm90"`)
    if any(not qs or not any(q.value in dropped for q in qs) for qs in at.values()):
        return None
    targets = {q.target for qs in at.values() for q in qs}

    def assigned(c: Clause) -> set[str]:
        inside = range(c.body_start_line, c.end_line + 1)
        return ({q.target for q in produced if q.kind == "assign" and q.line in inside}
                | {a.target for a in facts.attr_assigns if a.line in inside})
    if any(targets <= assigned(c) for c in branch.clauses[i + 1:]):
        return clause
    # a final `else` may go when an earlier clause assigns the same targets and an enclosing
    # condition reads each of them (`if self.attention_backend is None: ... else: ... =
    # "fa3"`): the attribute exists, the fold leaves its earlier value
    if clause.kind == "else" and any(targets <= assigned(c) for c in branch.clauses[:i]) \
            and all(_tested_around(facts, branch, t) for t in targets):
        return clause
    return None


def _tested_around(facts: PythonFacts, branch: Branch, target: str) -> bool:
    """Some ``if`` clause enclosing ``branch`` has a condition that reads ``target``."""
    for b in facts.branches:
        if b.kind != "if" or b is branch:
            continue
        for c in b.clauses:
            if c.cond is not None and c.body_start_line <= branch.start_line <= c.end_line \
                    and _reads(c.cond, target):
                return True
    return False


def _reads(cond: Cond, chain: str) -> bool:
    if cond.kind == "name" and cond.value == chain:
        return True
    return any(_reads(c, chain) for c in cond.children)
