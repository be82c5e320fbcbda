"""Graph stage: one networkx DiGraph of modules, symbols and (later stages) native targets.

Nodes (``kind`` attribute): ``module`` (a Python file), ``symbol`` (a top-level function or
class), ``external`` (a third-party top-level package). Ids: ``py:<module>``,
``py:<module>:<name>``, ``ext:<package>``.

Edges carry ``kind`` and the ``file``/``line`` they come from. Edge kinds and their meaning
for liveness (an edge u -> v means "if u is live, v is live"):

- ``import``            module or definition executes an import of v (module-level or lazy)
- ``optional_import``   the same inside ``try/except ImportError``
- ``reference``         u reads name v (resolved through imports and re-exports)
- ``parent_package``    importing a module runs its packages' ``__init__.py`` first
- ``defined_in``        a live symbol's module is loaded
- ``registered``        a decorator with a registry shape (string key, or an in-tree
                        decorator) runs at import time and keeps the definition reachable
- ``string_ref``        a string literal spells v's dotted path
- ``dynamic_import``    ``importlib.import_module("v")``; v's public definitions are live
                        too (a dynamically loaded module is used through getattr)
- ``plugin_family``     a package named by a string in a module that walks packages with
                        ``pkgutil``, or passed to a function that does, has every submodule
                        loaded (and, as above, their public definitions live); so does the
                        own package of a module that lists its ``__file__`` folder and walks
                        it with pkgutil or imports computed names
- ``star_import``       ``from m import *`` brings in m's public definitions
- ``exported``          a name listed in a live module's ``__all__`` (public API) is live
- ``type_checking``     typing-only (``if TYPE_CHECKING:``); never followed by liveness

The first edge between two nodes wins (facts are visited in a deterministic order), so each
edge names one concrete origin.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

import networkx as nx

from analyzer.decide.options import GraphOptions
from analyzer.extract.python import TRY_IMPORT_ERROR, TYPE_CHECKING, Definition, ImportFact
from analyzer.nodes import Graph, module_node, symbol_node
from analyzer.resolve.python import ModuleIndex, PyModule, Target

NOT_FOLLOWED = frozenset({"type_checking"})
# module-level functions the interpreter calls by name (PEP 562): live with their module
MODULE_HOOKS = frozenset({"__getattr__", "__dir__"})


@dataclass(frozen=True)
class PythonGraph:
    """What the graph stage hands on: the graph, the in-tree names that resolved to nothing
    (for the report) and the import bindings other modules resolved through (module, name):
    re-exports the plan must keep."""

    graph: Graph
    unresolved: list[dict[str, object]]
    reexported: frozenset[tuple[str, str]]


def build_python_graph(index: ModuleIndex, options: GraphOptions | None = None) -> PythonGraph:
    """The Python graph of ``index``. Decisions the options caused are kept in
    ``graph.graph["decisions"]`` as evidence."""
    options = options or GraphOptions()
    graph: Graph = nx.DiGraph(decisions=[])
    unresolved: list[dict[str, object]] = []
    for name in sorted(index.modules):
        mod = index.modules[name]
        graph.add_node(module_node(name), kind="module", module=name, path=mod.path,
                       is_package=mod.is_package, lines=mod.facts.line_count,
                       main_guard=mod.facts.main_guard_line is not None)
        for d in mod.facts.definitions:
            if d.kind in ("function", "class") and mod.defs.get(d.name) in ("function", "class"):
                node = symbol_node(name, d.name)
                if node not in graph:
                    graph.add_node(node, kind="symbol", module=name, name=d.name,
                                   symbol_kind=d.kind, path=mod.path, start_line=d.start_line,
                                   end_line=d.end_line, nested=d.nested)
    for ext, target in sorted(index.extensions.items()):
        graph.add_node(module_node(ext), kind="extension", module=ext, target=target)
    for package in sorted(index.installed_packages):
        graph.add_node(module_node(package), kind="installed_package", module=package)
    for name in sorted(index.modules):
        _ModuleEdges(index, graph, index.modules[name], unresolved, options).add_all()
    return PythonGraph(graph, unresolved, frozenset(index.reexports_used))


class _ModuleEdges:
    def __init__(self, index: ModuleIndex, graph: Graph, mod: PyModule,
                 unresolved: list[dict[str, object]], options: GraphOptions):
        self.index = index
        self.graph = graph
        self.mod = mod
        self.unresolved = unresolved
        self.options = options
        self.me = module_node(mod.name)
        ranges = options.dead_lines.get(mod.name, ())
        self._dead_starts = [s for s, _ in ranges]
        self._dead_ranges = ranges
        self._scope_nodes: dict[str, str] = {}  # symbol nodes exist before edges are added

    def dead(self, line: int) -> bool:
        """The line lies in a folded-away region: its facts make no edges."""
        i = bisect_right(self._dead_starts, line) - 1
        return i >= 0 and self._dead_ranges[i][0] <= line <= self._dead_ranges[i][1]

    def decide(self, line: int, what: str, reason: str) -> None:
        self.graph.graph["decisions"].append(
            {"path": self.mod.path, "line": line, "what": what, "reason": reason})

    def scope_node(self, scope: str) -> str:
        node = self._scope_nodes.get(scope)
        if node is None:
            node = self.me
            if scope:
                symbol = symbol_node(self.mod.name, scope)
                if symbol in self.graph:
                    node = symbol
            self._scope_nodes[scope] = node
        return node

    def edge(self, src: str, target: Target | None, kind: str, line: int) -> None:
        if target is None:
            return
        if target.kind == "unresolved":
            self.unresolved.append({"path": self.mod.path, "line": line, "kind": kind,
                                    "name": ".".join(p for p in (target.module, target.name) if p)})
            return
        dst = target.node
        if dst is None or dst == src:
            return
        if dst not in self.graph and target.kind == "module":
            # a module inside a package only the build creates (`import deep_gemm.utils`):
            # the package's node stands for it, so what installs the package stays
            dst = self._installed_owner(target.module) or dst
        if dst not in self.graph:
            if target.kind != "external":
                return
            self.graph.add_node(dst, kind="external", module=target.module.split(".")[0])
        if not self.graph.has_edge(src, dst):
            self.graph.add_edge(src, dst, kind=kind, file=self.mod.path, line=line)
        # Re-exports pass through modules: importing through them runs them.
        for via in target.via:
            via_node = module_node(via)
            if via_node in self.graph and via_node != src \
                    and not self.graph.has_edge(src, via_node):
                self.graph.add_edge(src, via_node, kind=kind, file=self.mod.path, line=line)

    def _installed_owner(self, module: str) -> str | None:
        parts = module.split(".")
        for i in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:i])
            if prefix in self.index.installed_packages or prefix in self.index.extensions:
                return module_node(prefix)
        return None

    def add_all(self) -> None:
        mod, index = self.mod, self.index
        for ancestor in index.ancestors_with_files(mod.name):
            self.graph.add_edge(self.me, module_node(ancestor), kind="parent_package",
                                file=mod.path, line=1)
        for d in mod.facts.definitions:
            node = symbol_node(mod.name, d.name)
            if self.dead(d.start_line):
                continue
            if node in self.graph and self.graph.nodes[node].get("start_line") == d.start_line:
                self.graph.add_edge(node, self.me, kind="defined_in", file=mod.path,
                                    line=d.start_line)
                if d.name in MODULE_HOOKS or self._registered(d):
                    self.graph.add_edge(self.me, node, kind="registered", file=mod.path,
                                        line=d.decorators[0].line if d.decorators else d.start_line)
        for name in mod.facts.all_names or ():
            # `__all__` is public API the codemod cannot edit yet: what it names stays live
            self.edge(self.me, index.resolve_attr(mod.name, name), "exported", 1)
        for fact in mod.facts.imports:
            if self.dead(fact.start_line):
                continue
            kind = ("type_checking" if TYPE_CHECKING in fact.context else
                    "optional_import" if TRY_IMPORT_ERROR in fact.context else "import")
            src = self.scope_node(fact.scope)
            for target in index.import_targets(mod.name, fact):
                self.edge(src, target, kind, fact.start_line)
            if fact.is_from and mod.name in self.options.frozen_imports:
                absolute = index.absolute(mod.name, fact)
                for imported in fact.names:
                    if absolute and imported.name != "*" and index.is_internal(absolute) \
                            and index.is_module(absolute):
                        self.edge(src, index.resolve_attr(absolute, imported.name), kind,
                                  fact.start_line)
            if fact.is_from and any(n.name == "*" for n in fact.names):
                self._star_edges(src, fact, kind)
        for ref in mod.facts.references:
            if self.dead(ref.line):
                continue
            # every binding the name may have at run time, except those in folded-away code
            for target, type_only, bound_at in index.resolve_chain_all(mod.name, ref.scope,
                                                                      ref.chain):
                if bound_at and self.dead(bound_at):
                    continue
                self.edge(self.scope_node(ref.scope), target,
                          "type_checking" if type_only else "reference", ref.line)
        walked = any(w.kind in ("iter_modules", "walk_packages")
                     for w in mod.facts.package_walks)
        self._self_loading_package()
        for s in mod.facts.strings:
            if not index.is_internal(s.value) or self.dead(s.line):
                continue
            target = index.resolve_dotted(s.value)
            src = self.scope_node(s.scope)
            kind = "dynamic_import" if s.kind == "import_module" else "string_ref"
            if target.kind == "unresolved" and s.kind == "dotted":
                continue  # a dotted-looking string that names nothing: prose, not a path
            self.edge(src, target, kind, s.line)
            if s.kind == "import_module" and target.kind == "module":
                self._public_definitions(src, target.module, kind, s.line)
            if target.kind == "module" and target.module in index.packages and (
                    walked or self._calls_package_walker(s.scope, s.call)):
                self._plugin_family(src, target.module, s.line)
        if walked:
            for ref in mod.facts.references:
                if ref.chain.endswith(".__path__"):
                    resolved = index.resolve_chain(mod.name, ref.scope, ref.chain[: -9])
                    if resolved and resolved[0].kind == "module":
                        self._plugin_family(self.scope_node(ref.scope), resolved[0].module,
                                            ref.line)

    def _self_loading_package(self) -> None:
        """A module that lists its own folder (``__file__``) and walks it with pkgutil, or
        imports computed names, loads its own package: every module of it is live."""
        facts = self.mod.facts
        kinds = {w.kind for w in facts.package_walks}
        if not (kinds & {"iter_modules", "walk_packages"}
                or {"listdir", "dynamic_import"} <= kinds):
            return
        if not any(r.chain.split(".")[0] == "__file__" for r in facts.references):
            return
        package = self.mod.name if self.mod.is_package else self.mod.name.rpartition(".")[0]
        if package:
            line = min(w.line for w in facts.package_walks)
            self._plugin_family(self.me, package, line, recursive="iter_modules" not in kinds)

    def _calls_package_walker(self, scope: str, call: str | None) -> bool:
        """``load_plugins("pkg.plugins")`` where ``load_plugins`` walks its argument."""
        if not call:
            return False
        resolved = self.index.resolve_chain(self.mod.name, scope, call)
        if resolved is None or resolved[0].kind != "symbol":
            return False
        target = resolved[0]
        walker = self.index.modules[target.module]
        return any(w.scope == target.name for w in walker.facts.package_walks)

    def _registered(self, d: Definition) -> bool:
        registered = False
        for dec in d.decorators:
            resolved = self.index.resolve_chain(self.mod.name, d.name, dec.name)
            target = resolved[0] if resolved else None
            if target is not None and target.kind == "symbol":
                qualified = f"{target.module}.{target.name}"
                if qualified in self.options.registries:
                    key_arg, dropped = self.options.registries[qualified]
                    key = dec.string_args[key_arg] if len(dec.string_args) > key_arg else None
                    if key in dropped:
                        self.decide(dec.line, f"{self.mod.name}:{d.name}",
                                    f"registered under dropped key {key!r} of {qualified}")
                        return False
            if dec.string_args or (target is not None
                                   and target.kind in ("symbol", "attribute", "module")):
                registered = True
        return registered

    def _star_edges(self, src: str, fact: ImportFact, kind: str) -> None:
        source = self.index.absolute(self.mod.name, fact)
        target_mod = self.index.modules.get(source or "")
        if target_mod is None:
            return
        names = target_mod.facts.all_names
        for name, def_kind in sorted(target_mod.defs.items()):
            public = name in names if names is not None else not name.startswith("_")
            if public and def_kind in ("function", "class"):
                self.edge(src, Target("symbol", target_mod.name, name), "star_import",
                          fact.start_line)

    def _plugin_family(self, src: str, package: str, line: int,
                       recursive: bool | None = None) -> None:
        if package in self.options.restricted_families:
            self.decide(line, package, "plugin family: only modules the roots name (or live "
                        "code imports) stay live")
            return
        if recursive is None:
            recursive = any(w.kind == "walk_packages" for w in self.mod.facts.package_walks)
        for sub in self.index.submodules(package, recursive):
            if sub in self.index.modules:
                self.edge(src, Target("module", sub), "plugin_family", line)
                self._public_definitions(src, sub, "plugin_family", line)

    def _public_definitions(self, src: str, module: str, kind: str, line: int) -> None:
        """A dynamically loaded module is used through getattr: its public API is live."""
        mod = self.index.modules.get(module)
        if mod is None:
            return
        for name, def_kind in sorted(mod.defs.items()):
            if def_kind in ("function", "class") and not name.startswith("_"):
                self.edge(src, Target("symbol", module, name), kind, line)


def module_import_edges(index: ModuleIndex) -> set[tuple[str, str]]:
    """The plain module import graph (every import, any context), grimp's definition:
    ``from a import b`` is an edge to ``a.b`` when that is a module, else to ``a``."""
    edges: set[tuple[str, str]] = set()
    for name, mod in index.modules.items():
        for fact in mod.facts.imports:
            absolute = index.absolute(name, fact)
            if absolute is None or not index.is_internal(absolute):
                continue
            targets: list[str] = []
            if fact.is_from:
                for imported in fact.names:
                    sub = f"{absolute}.{imported.name}"
                    targets.append(sub if imported.name != "*" and index.is_module(sub)
                                   else absolute)
            else:
                targets.append(absolute)
            edges.update((name, t) for t in targets if t != name and t in index.modules)
    return edges
