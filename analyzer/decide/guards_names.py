"""Decide stage, guards: the names a condition reads -- where a dotted chain read in a scope points
(module, re-export, symbol; the qualified names its constants are looked up by), the tails a
domain pattern is matched against, the attribute assignments of the tree by attribute name and
the class hierarchy by name. The evaluator (``analyzer.decide.guards_eval``) asks them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from analyzer.extract.python_branches import Cond
from analyzer.extract.python_facts import AttrAssign
from analyzer.resolve.python import ModuleIndex, Target


@dataclass
class AttrSets:
    """The assignments that may set one attribute name, in the tree's order, indexed the ways
    :meth:`Evaluator.instance_attr` asks: by (module, class, target), by class name, and
    whether any is no ``self.<name> = ...`` in a class body's method (``odd``)."""

    items: list[tuple[str, AttrAssign]] = field(default_factory=list)
    at: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)
    in_class: dict[str, list[int]] = field(default_factory=dict)
    odd: bool = False

    def add(self, module: str, a: AttrAssign, in_a_class: bool) -> None:
        i = len(self.items)
        self.items.append((module, a))
        self.at.setdefault((module, a.scope, a.target), []).append(i)
        self.in_class.setdefault(a.scope, []).append(i)
        if not a.target.startswith("self.") or a.target == a.attr or not in_a_class:
            self.odd = True


class AttributeTable:
    """Attribute name -> every assignment that may set it, in the tree's order: what
    :meth:`Evaluator.instance_attr` asks of the whole tree. The modules assigning each name are
    indexed once, when first asked; a name's :class:`AttrSets` are made when it is asked (a pass
    folding a few modules asks of a few names: the sets of every name would be made for none)."""

    def __init__(self, index: ModuleIndex) -> None:
        self._index = index
        self._modules: dict[str, list[str]] | None = None  # name -> modules assigning it
        self._sets: dict[str, AttrSets | None] = {}

    def get(self, attr: str) -> AttrSets | None:
        """The assignments that may set ``attr`` (None: none in the tree)."""
        if attr in self._sets:
            return self._sets[attr]
        if self._modules is None:
            self._modules = _assigning_modules(self._index)
        sets = None
        for name in self._modules.get(attr, ()):
            mod = self._index.modules[name]
            for a in getattr(mod.facts, "attr_assigns", ()):
                if a.attr == attr:
                    if sets is None:
                        sets = AttrSets()
                    sets.add(name, a, mod.defs.get(a.scope) == "class")
        self._sets[attr] = sets
        return sets


def _assigning_modules(index: ModuleIndex) -> dict[str, list[str]]:
    """Attribute name -> the modules assigning it, in the tree's order."""
    out: dict[str, list[str]] = {}
    for name, mod in index.modules.items():
        for attr in {a.attr for a in getattr(mod.facts, "attr_assigns", ())}:
            out.setdefault(attr, []).append(name)
    return out


def class_tables(index: ModuleIndex
                 ) -> tuple[dict[str, tuple[str, ...]], dict[str, list[str]]]:
    """Class name -> the names of its bases, and -> the names of its subclasses (each name
    once; tuples and lists, not sets: thousands of classes, most with one base)."""
    bases: dict[str, tuple[str, ...]] = {}
    for mod in index.modules.values():
        for d in mod.facts.definitions:
            if d.kind == "class":
                names = tuple(dict.fromkeys(b.rsplit(".", 1)[-1] for b in d.bases))
                had = bases.get(d.name)
                bases[d.name] = names if had is None else tuple(dict.fromkeys(had + names))
    children: dict[str, list[str]] = {}
    for name, bs in bases.items():
        for b in bs:
            children.setdefault(b, []).append(name)
    return bases, children


def closure(start: str, edges: Mapping[str, Collection[str]]) -> set[str]:
    """Names reachable from ``start`` over ``edges`` (``start`` itself only on a cycle)."""
    out: set[str] = set()
    todo = [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in out:
                out.add(nxt)
                todo.append(nxt)
    return out


def qualify(index: ModuleIndex, module: str, scope: str, chain: str
            ) -> tuple[Target | None, tuple[str, ...], list[str]] | None:
    """Where a chain read in ``scope`` of ``module`` points: (the in-tree target reached by
    following modules and re-exports, or None; the attribute parts left after it; qualified
    names to look constants up by, canonical first, as written second). None for names that
    are not module-level bindings (locals, builtins)."""
    parts = chain.split(".")
    if module not in index.modules or not all(parts):
        return None
    found = index.lookup(module, scope, parts[0])
    if found is None:
        return None
    if found == "def":
        kind = index.modules[module].defs[parts[0]]
        target: Target = Target("symbol" if kind in ("function", "class") else "attribute",
                                module, parts[0])
        literal = f"{module}.{chain}"
    else:
        assert isinstance(found, list)
        binding = found[-1]
        fact = binding.fact
        absolute = index.absolute(module, fact)
        if absolute is None:
            return None
        if not fact.is_from:
            literal = ".".join([absolute, *parts[1:]]) if fact.alias else chain
            start = absolute if fact.alias else parts[0]
            target = Target("module", start) if index.is_module(start) else Target(
                "external", start)
        else:
            imported = binding.imported or parts[0]
            literal = ".".join([absolute, imported, *parts[1:]])
            if index.is_internal(absolute) and index.is_module(absolute):
                target = index.resolve_attr(absolute, imported)
            else:
                target = Target("external", f"{absolute}.{imported}")
    i = 1
    while i < len(parts) and target.kind == "module":
        nxt = index.resolve_attr(target.module, parts[i])
        if nxt.kind == "unresolved":
            break
        target = nxt
        i += 1
    rest = tuple(parts[i:])
    if target.kind in ("symbol", "attribute", "unresolved") and target.name:
        base = f"{target.module}.{target.name}"
    else:
        base = target.module
    canonical = ".".join([base, *rest])
    names = list(dict.fromkeys([canonical, literal]))
    in_tree = target if target.kind in ("module", "symbol", "attribute") else None
    return in_tree, rest, names


def chain_tails(chain: str) -> list[str]:
    """A dotted chain and each of its dotted tails (``a.b.c``, ``b.c``, ``c``): what a domain
    pattern is matched against."""
    parts = chain.split(".")
    return [".".join(parts[i:]) for i in range(len(parts))]


def domain_chain(cond: Cond) -> str | None:
    """The dotted chain a domain pattern is matched against: a name chain, or ``f()`` for a
    call without arguments."""
    if cond.kind == "name":
        return cond.value
    if cond.kind == "call" and not cond.args and not cond.children and cond.value:
        return cond.value + "()"
    return None
