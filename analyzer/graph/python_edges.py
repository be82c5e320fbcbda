"""Graph stage, Python: one module's edges (:class:`ModuleEdges`): its imports, references,
strings, registrations, walked packages and methods, each resolved against the index into
edges from the module's own nodes, in a deterministic order. ``analyzer.graph.python`` records
them per module and replays them.
"""

from __future__ import annotations

from bisect import bisect_right
from fnmatch import fnmatchcase

from analyzer.decide.options import GraphOptions
from analyzer.discover.test_files import is_test_module
from analyzer.extract.python_facts import TRY_IMPORT_ERROR, TYPE_CHECKING, Definition, ImportFact
from analyzer.graph.python_nodes import MADE_NODES, MODULE_HOOKS, enumerated_class
from analyzer.nodes import (
    EdgeData,
    Graph,
    attribute_node,
    module_node,
    put_edge,
    symbol_node,
)
from analyzer.resolve.call_args import resolved_member_names
from analyzer.resolve.python import ModuleIndex, PyModule, Target
from analyzer.util.pickling import shared as share


class ModuleEdges:
    def __init__(self, index: ModuleIndex, graph: Graph, mod: PyModule,
                 unresolved: list[dict[str, object]], options: GraphOptions,
                 gated: frozenset[str] = frozenset(),
                 subclasses: dict[str, list[tuple[str, str]]] | None = None,
                 made_attrs: dict[tuple[object, ...], dict[str, object]] | None = None):
        self.index = index
        self.made_attrs = made_attrs if made_attrs is not None else {}
        self.subclasses = subclasses or {}
        self.gated = gated
        # class -> its methods' (start line, end line, node), by start line
        self._methods: dict[str, list[tuple[int, int, str]]] = {}
        for m in mod.facts.method_defs:
            node = symbol_node(mod.name, f"{m.cls}.{m.name}")
            if node in graph and graph.nodes[node]["start_line"] == m.start_line:
                self._methods.setdefault(m.cls, []).append((m.start_line, m.end_line, node))
        for spans in self._methods.values():
            spans.sort()
        self.method_nodes = {n for spans in self._methods.values() for _, _, n in spans}
        self.graph = graph
        self.mod = mod
        self.unresolved = unresolved
        self.options = options
        self.me = module_node(mod.name)
        ranges = options.dead_lines.get(mod.name, ())
        self._dead_starts = [s for s, _ in ranges]
        self._dead_ranges = ranges
        self._scope_nodes: dict[str, str] = {}  # symbol nodes exist before edges are added
        # every node and edge added, in order, flat (:data:`Ops`)
        self.ops: list[object] = []
        # registry targets looked up in the options, with what they held
        self.registries_read: dict[str, tuple[int, frozenset[str]] | None] = {}
        # classes whose subclasses (``Base.__subclasses__()``) were looked up, with what the
        # tree's subclass index held for each
        self.subclasses_read: dict[str, tuple[tuple[str, str], ...]] = {}

    def dead(self, line: int) -> bool:
        """The line lies in a folded-away region: its facts make no edges."""
        i = bisect_right(self._dead_starts, line) - 1
        return i >= 0 and self._dead_ranges[i][0] <= line <= self._dead_ranges[i][1]

    def _ensure_node(self, node: str) -> None:
        """Record that this module's edges need ``node`` (one that edges create, not one every
        graph has): a replay adds it when no module before did."""
        attrs = self.graph.nodes[node]  # (strings only: the kind and the name)
        key: tuple[object, ...] = (node, *attrs.items())
        shared = self.made_attrs.get(key)
        if shared is None:
            shared = self.made_attrs[key] = dict(attrs)
        self.ops.extend((share(node), None, shared))

    def _add_edge(self, src: str, dst: str, kind: str, file: str, line: int) -> None:
        # node ids shared: a record names each node with one string object, which the
        # persisted memo (analyzer.graph.edge_store) then stores once, and the graphs
        # replaying it share (~580,000 strings of ~77,000 values on the largest trees) --
        # the same object as the node's own id (module_nodes) and a loaded memo's
        src, dst = share(src), share(dst)
        attrs = EdgeData(kind, file, line)
        put_edge(self.graph, src, dst, attrs)  # (the record and the graph share ``attrs``)
        self.ops.extend((src, dst, attrs))

    def decide(self, line: int, what: str, reason: str) -> None:
        self.graph.graph["decisions"].append(
            {"path": self.mod.path, "line": line, "what": what, "reason": reason})

    def first_live(self, line: int, also: tuple[int, ...] = (), read: str = ""
                   ) -> int | None:
        """The first of a fact's lines outside folded-away code (for ``read``, a chain or
        ``.attribute``, also outside a folded arm that alone reads it there), or None."""
        for candidate in (line, *also):
            if not self.dead(candidate) and not (
                    read and self.index.dead_read(self.mod.name, read, candidate)):
                return candidate
        return None

    def owner(self, scope: str, line: int) -> str:
        """The node a fact at ``line`` of top-level ``scope`` comes from: its method's node
        when it lies in one, else the scope's."""
        spans = self._methods.get(scope) if scope else None
        if spans:
            i = bisect_right(spans, (line, 1 << 30, "")) - 1
            if i >= 0 and spans[i][0] <= line <= spans[i][1]:
                return spans[i][2]
        return self.scope_node(scope)

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
        if self.graph.nodes[dst].get("kind") in MADE_NODES:  # present now: also on replay
            self._ensure_node(dst)
        if not self.graph.has_edge(src, dst):
            self._add_edge(src, dst, kind=kind, file=self.mod.path, line=line)
        # Re-exports pass through modules: importing through them runs them.
        for via in target.via:
            via_node = module_node(via)
            if via_node in self.graph and via_node != src \
                    and not self.graph.has_edge(src, via_node):
                self._add_edge(src, via_node, kind=kind, file=self.mod.path, line=line)

    def _installed_owner(self, module: str) -> str | None:
        parts = module.split(".")
        for i in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:i])
            if self.index.built_here(prefix):
                return module_node(prefix)
        return None

    def add_all(self) -> None:
        mod, index = self.mod, self.index
        for ancestor in index.ancestors_with_files(mod.name):
            self._add_edge(self.me, module_node(ancestor), kind="parent_package",
                                file=mod.path, line=1)
        for d in mod.facts.definitions:
            node = symbol_node(mod.name, d.name)
            if self.dead(d.start_line):
                continue
            if node in self.graph and self.graph.nodes[node].get("start_line") == d.start_line:
                self._add_edge(node, self.me, kind="defined_in", file=mod.path,
                                    line=d.start_line)
                if d.name in MODULE_HOOKS or self._registered(d):
                    self._add_edge(self.me, node, kind="registered", file=mod.path,
                                        line=d.decorators[0].line if d.decorators else d.start_line)
        for name in mod.facts.all_names or ():
            # `__all__` is public API the codemod cannot edit yet: what it names stays live
            self.edge(self.me, index.resolve_attr(mod.name, name), "exported", 1)
        for fact in mod.facts.imports:
            if self.dead(fact.start_line):
                continue
            kind = ("type_checking" if TYPE_CHECKING in fact.context else
                    "optional_import" if TRY_IMPORT_ERROR in fact.context else "import")
            src = self.owner(fact.scope, fact.start_line)
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
        type_tests = {(a.line, a.chain) for a in mod.facts.type_test_appends}
        for ref in mod.facts.references:
            lines = [ln for ln in (ref.line, *ref.also) if (ln, ref.chain) not in type_tests]
            line = self.first_live(lines[0], tuple(lines[1:]), ref.chain) if lines else None
            if line is None:
                tested = [ln for ln in (ref.line, *ref.also) if not self.dead(ln)]
                if tested:  # only type tests read it: an edge that keeps nothing live
                    src = self.owner(ref.scope, tested[0])
                    for target, _t, _b in index.resolve_chain_all(mod.name, ref.scope,
                                                                 ref.chain):
                        self.edge(src, target, "type_test", tested[0])
                continue
            # every binding the name may have at run time, except those in folded-away code
            src = self.owner(ref.scope, line)
            # inside a method, its own imports (not another method's) bind the name
            scope = self.graph.nodes[src]["name"] if src in self.method_nodes else ref.scope
            for target, type_only, bound_at in index.resolve_chain_all(mod.name, scope,
                                                                      ref.chain):
                if bound_at and self.dead(bound_at):
                    continue
                self.edge(src, target, "type_checking" if type_only else "reference", line)
                if target.kind == "module" and not type_only and ref.value_lines \
                        and not ref.chain.rpartition(".")[2].startswith("__") \
                        and self.first_live(ref.value_lines[0], ref.value_lines[1:],
                                            ref.chain) is not None:
                    # the module object itself is a value (`CMD_MODULES = [cli.serve, ...]`,
                    # then `m.cmd_init()`): any of its public definitions may be read from it
                    self._public_definitions(src, target.module, "module_value", line)
            if ref.chain.endswith(".__subclasses__"):
                self._subclasses(src, scope, ref.chain, line)
        if self.gated:
            self._member_reads()
        walked = any(w.kind in ("iter_modules", "walk_packages")
                     for w in mod.facts.package_walks)
        self._self_loading_package()
        for s in mod.facts.strings:
            if s.kind == "path":  # a relative path to a Python file: loaded by its path
                named = index.module_at(s.value)
                if named is not None and not self.dead(s.line):
                    src = self.owner(s.scope, s.line)
                    path = index.modules[named].path
                    if is_test_module(path) and path != mod.path \
                            and not is_test_module(mod.path):
                        # a test a runner or suite list names: it runs the test, and loses
                        # the entry when the test goes (plan.python.plan_peripheral)
                        self.edge(src, Target("module", named), "names_test", s.line)
                        continue
                    self.edge(src, Target("module", named), "string_ref", s.line)
                    self._public_definitions(src, named, "string_ref", s.line)
                continue
            if not index.is_internal(s.value) or self.dead(s.line):
                continue
            target = index.resolve_dotted(s.value)
            src = self.owner(s.scope, s.line)
            kind = "dynamic_import" if s.kind == "import_module" else "string_ref"
            if target.kind == "unresolved" and s.kind == "dotted":
                continue  # a dotted-looking string that names nothing: prose, not a path
            self.edge(src, target, kind, s.line)
            if target.kind == "module":
                # a literal import_module argument, or a dotted string naming a module: it is
                # there to be loaded (`M = "pkg.mod"; import_module(M).fn()`), and what is
                # loaded is used through getattr, so its public API is live either way
                self._public_definitions(src, target.module, kind, s.line)
            if target.kind == "module" and index.is_package_name(target.module) and (
                    walked or self._calls_package_walker(s.scope, s.call)
                    or self._plugin_folder(target.module)):
                # a folder of modules without __init__.py named as a value is there to have
                # its modules found and loaded (`EXTERNAL_MODEL_PACKAGE = "pkg.ext"`)
                self._plugin_family(src, target.module, s.line,
                                    None if index.has_module(target.module) else False)
        for walk in mod.facts.package_walks:
            # import_module(f"pkg.backends.{name}"): any module under pkg.backends whose name
            # starts so may be the one loaded (and used through getattr)
            package = walk.prefix_package
            if package is not None and index.is_package_name(package) \
                    and index.is_internal(package) \
                    and not self.dead(walk.line):
                self._plugin_family(self.owner(walk.scope, walk.line), package, walk.line,
                                    recursive=True, prefix=walk.prefix or "")
        if walked:
            for ref in mod.facts.references:
                if ref.chain.endswith(".__path__"):
                    resolved = index.resolve_chain(mod.name, ref.scope, ref.chain[: -9])
                    if resolved and resolved[0].kind == "module":
                        self._plugin_family(self.owner(ref.scope, ref.line),
                                            resolved[0].module, ref.line)

    def _subclasses(self, src: str, scope: str, chain: str, line: int) -> None:
        """``Base.__subclasses__()`` hands every direct subclass of Base to live code (vLLM's
        CLI finds its subcommands so): each is used, as if named here."""
        base = enumerated_class(self.index, self.mod.name, scope, chain)
        if base is None:
            return
        found = self.subclasses_read[base] = tuple(self.subclasses.get(base, ()))
        for module, name in found:
            self.edge(src, self.index.resolve_attr(module, name), "subclasses", line)

    def _member_reads(self) -> None:
        """``attribute_read`` edges to the names of gated methods this module reads (none
        when it reads no pattern and no gated plain name: its uses then stay packed)."""
        plain, patterns = member_read_names(self.mod)
        if not patterns and plain.isdisjoint(self.gated):
            return
        matches: dict[str, list[str]] = {}
        for use in self.mod.facts.member_uses:
            name = use.name
            if name == "*":
                continue  # an enumeration: its module's classes are open-ended instead
            if "*" in name:
                resolved = resolved_member_names(self.mod, use.scope, use.lines, name)
                if resolved is not None:  # a parameter's template: what the callers pass
                    names = [n for n in resolved if n in self.gated]
                else:
                    if name not in matches:
                        matches[name] = sorted(n for n in self.gated if fnmatchcase(n, name))
                    names = matches[name]
            else:
                names = [name] if name in self.gated else []
            if not names:
                continue
            line = self.first_live(use.lines[0], use.lines[1:], "." + use.name)
            if line is None:
                continue
            src = self.owner(use.scope, line)
            for n in names:
                dst = attribute_node(n)
                if dst not in self.graph:
                    self.graph.add_node(dst, kind="attribute", name=n)
                self._ensure_node(dst)
                if not self.graph.has_edge(src, dst):
                    self._add_edge(src, dst, kind="attribute_read", file=self.mod.path,
                                        line=line)

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
        walker = self.index.module(target.module)
        return walker is not None and any(w.scope == target.name
                                          for w in walker.facts.package_walks)

    def _registered(self, d: Definition) -> bool:
        registered = False
        for dec in d.decorators:
            resolved = self.index.resolve_chain(self.mod.name, d.name, dec.name)
            target = resolved[0] if resolved else None
            if target is not None and target.kind == "symbol":
                qualified = f"{target.module}.{target.name}"
                self.registries_read[qualified] = self.options.registries.get(qualified)
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
        target_mod = self.index.module(source) if source else None
        if target_mod is None:
            return
        names = target_mod.facts.all_names
        for name, def_kind in sorted(target_mod.defs.items()):
            public = name in names if names is not None else not name.startswith("_")
            if public and def_kind in ("function", "class"):
                self.edge(src, Target("symbol", target_mod.name, name), "star_import",
                          fact.start_line)

    def _plugin_family(self, src: str, package: str, line: int,
                       recursive: bool | None = None, prefix: str = "") -> None:
        """Every submodule of ``package`` (whose dotted name starts with ``prefix``) is
        loaded, its public definitions live -- unless the profile restricts the family."""
        if package in self.options.restricted_families:
            family = self.options.restricted_families[package]
            self.decide(line, package, f"plugin family {family}: only modules the roots name "
                        "(or live code imports) stay live")
            return
        if recursive is None:
            recursive = any(w.kind == "walk_packages" for w in self.mod.facts.package_walks)
        for sub in self.index.submodules(package, recursive):
            if self.index.has_module(sub) and sub.startswith(prefix):
                self.edge(src, Target("module", sub), "plugin_family", line)
                self._public_definitions(src, sub, "plugin_family", line)

    def _plugin_folder(self, package: str) -> bool:
        """A namespace package (no ``__init__.py``) holding modules and no package: a folder
        of plugins (``sglang.test.external_models``), not a level of the source tree
        (``sglang.srt`` in a test that stubs it)."""
        index = self.index
        kids = index.children_of(package)
        return not index.has_module(package) and bool(kids) and all(
            index.has_module(k) and not index.modules[k].is_package
            and not index.children_of(k) for k in kids)

    def _public_definitions(self, src: str, module: str, kind: str, line: int) -> None:
        """A dynamically loaded module is used through getattr: its public API is live."""
        mod = self.index.module(module)
        if mod is None:
            return
        for name, def_kind in sorted(mod.defs.items()):
            if def_kind in ("function", "class") and not name.startswith("_"):
                self.edge(src, Target("symbol", module, name), kind, line)


def member_read_names(mod: PyModule) -> tuple[frozenset[str], bool]:
    """The method names the module reads as plain names, and whether it reads a pattern (a
    name with ``*`` but ``*`` alone, an enumeration): a function of its facts, computed once."""
    known = mod.own.get("member_read_names")
    if known is None:
        names = mod.facts.member_names  # (the names of ``member_uses``, which stay packed)
        known = mod.own["member_read_names"] = (
            frozenset(n for n in names if "*" not in n),
            any("*" in n and n != "*" for n in names))
    return known
