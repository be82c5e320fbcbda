"""Resolve stage, a module's binding tables: from one module's facts, what each name it
defines is and what each of its imports binds, module-wide and per scope -- the tables
:class:`~analyzer.resolve.python.ModuleIndex` resolves names with (made once per module: a
function of its facts alone)."""

from __future__ import annotations

from typing import Protocol

from analyzer.extract.python_facts import ImportFact, PythonFacts

Bound = dict[str, list[tuple[ImportFact, str | None]]]  # name -> (import, imported name)


class PyModule(Protocol):
    """The tables of a module (``analyzer.resolve.python.PyModule``) this fills in."""

    facts: PythonFacts
    defs: dict[str, str]
    bindings: Bound
    scoped: dict[str, Bound]
    star_imports: list[ImportFact]
    assigned: set[str]
    indexed: bool


def index_bindings(mod: PyModule) -> None:
    """Make the module's tables from its facts: what each name it defines is (``defs``),
    what each import binds, module-wide and in each scope (``bindings``, ``scoped``), its
    star imports and the names a module-level assignment binds."""
    mod.indexed = True
    mod.assigned = {d.name for d in mod.facts.definitions if d.kind == "assignment"}
    for d in mod.facts.definitions:
        # Later definitions of a name do not change its kind for liveness purposes except
        # that a function/class anywhere wins over an assignment (conditional definitions).
        if d.name not in mod.defs or d.kind in ("function", "class"):
            mod.defs[d.name] = d.kind
    methods = [(m.start_line, m.end_line, f"{m.cls}.{m.name}") for m in mod.facts.method_defs]
    for fact in mod.facts.imports:
        tables = [mod.scoped.setdefault(fact.scope, {}) if fact.scope else mod.bindings]
        # a method's own imports are also its own scope's ("Class.method"): a read inside
        # that method resolves to them alone, not to another method's import of the name
        tables.extend(mod.scoped.setdefault(qualified, {}) for s, e, qualified in methods
                      if qualified.partition(".")[0] == fact.scope and s <= fact.start_line <= e)
        for table in tables:
            _bind(table, fact, mod)
    # An import binding shadows an assignment of the same name only if no def exists.
    for name in list(mod.defs):
        if mod.defs[name] == "assignment" and name in mod.bindings:
            del mod.defs[name]


def _bind(table: Bound, fact: ImportFact,
          mod: PyModule) -> None:
    if not fact.is_from:
        bound = fact.alias or fact.module.split(".")[0]
        table.setdefault(bound, []).append((fact, None))
        return
    for imported in fact.names:
        if imported.name == "*":
            if not fact.scope and table is mod.bindings:
                mod.star_imports.append(fact)
            continue
        table.setdefault(imported.alias or imported.name, []).append((fact, imported.name))
