"""Resolve stage, Python: names, imports and dotted strings -> modules and symbols of the tree.

Input: the module index (module name -> file, facts) built from discovery and extraction.
Output: answers to "what does this import / this name chain / this string point at?", as
``Target`` values the graph stage turns into edges. Nothing is parsed here.

Resolution follows Python's rules statically: ``import a.b.c`` binds ``a``; ``from m import n``
gives submodule ``m.n`` if it exists, else the definition ``n`` of ``m``, else whatever ``m``
itself imports as ``n`` (re-exports, followed transitively), else what ``m``'s star imports
provide. Relative imports are anchored at the importing module's package. Namespace packages
(folders without ``__init__.py``) are packages without a file: they resolve, but have no node.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from analyzer.core.session import hold, recall
from analyzer.core.store import Query, key_of
from analyzer.extract.python_facts import TYPE_CHECKING, ImportFact, PythonFacts
from analyzer.nodes import external_node, module_node, symbol_node
from analyzer.resolve.bindings import index_bindings
from analyzer.resolve.shape import path_tails, tree_shape

BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__path__",
                                       "__spec__", "__package__", "__loader__", "self", "cls"}


@dataclass(frozen=True)
class Target:
    """What a name, import or string resolved to."""

    kind: str  # "module" | "symbol" | "attribute" | "external" | "unresolved"
    module: str  # module name (internal), top-level name (external), or what was looked up
    name: str | None = None  # symbol/attribute name inside ``module``
    via: tuple[str, ...] = ()  # modules whose re-exports were followed

    @property
    def node(self) -> str | None:
        if self.kind == "module":
            return module_node(self.module)
        if self.kind == "symbol":
            return symbol_node(self.module, self.name or "")
        if self.kind == "attribute":
            return module_node(self.module)
        if self.kind == "external":
            return external_node(self.module)
        return None


@dataclass
class PyModule:
    name: str
    path: str
    is_package: bool
    facts: PythonFacts
    # name -> kind ("function" | "class" | "assignment"), first definition wins for kind
    defs: dict[str, str] = field(default_factory=dict)
    # module-level import bindings: bound name -> (ImportFact, imported name or None)
    bindings: dict[str, list[tuple[ImportFact, str | None]]] = field(default_factory=dict)
    # per-scope (function-level) bindings
    scoped: dict[str, dict[str, list[tuple[ImportFact, str | None]]]] = field(default_factory=dict)
    star_imports: list[ImportFact] = field(default_factory=list)
    assigned: set[str] = field(default_factory=set)  # every name a module-level `=` binds
    # values later stages derive from the module's name, path, package flag and facts alone
    # (its nodes, the names it reads): shared by every index of the same module in a
    # command (:func:`py_module`: the gate's copy takes the scan's)
    own: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # values later stages derive from the facts and this index (what its imports resolve
    # to, where the rounds' folds leave its reads), computed once per scan (not per round)
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # the tables above (defs ... assigned) are made already (shared with :func:`py_module`'s
    # earlier module): the index does not make them again
    indexed: bool = field(default=False, compare=False, repr=False)


# a module's own part (the facts it was made of, its tables and ``own``), held for the command
# by the session: the next module of the same name, path, package flag and facts object (the
# gate's copy, a later pass of the scan) shares it
MODULE_OWN = Query("module_own", code=("analyzer.resolve.python",), shared=True)


def py_module(name: str, path: str, is_package: bool, facts: PythonFacts) -> PyModule:
    """The module ``name`` of the file at ``path`` with ``facts``: its tables (bindings,
    definitions) and ``own`` values shared with the last module the command made of the same
    name, path, package flag and facts object (values of those alone), else new."""
    key = key_of(name, path, is_package)
    held = recall(MODULE_OWN, key)
    if isinstance(held, tuple) and held[0] is facts:
        _facts, defs, bindings, scoped, star_imports, assigned, own = held
        return PyModule(name, path, is_package, facts, defs, bindings, scoped, star_imports,
                        assigned, own, indexed=True)
    mod = PyModule(name, path, is_package, facts)
    index_bindings(mod)
    hold(MODULE_OWN, key, (facts, mod.defs, mod.bindings, mod.scoped, mod.star_imports,
                           mod.assigned, mod.own))
    return mod


# what a resolution depended on: ("reexport", module, name), ("order", module, scope, name),
# ("module", module): that module's facts were read, or a read of the tree's shape (kinds
# SHAPE_READS): ("in", name) what ``name`` is (a module's file, a package, an extension module,
# inside a package only the build installs), ("children", package) what a package holds,
# ("top", name) whether a top-level name is the tree's, ("at", path) which file a path names,
# ("attr", module, name) as ("in", "module.name")
Dependency = tuple[str, ...]
SHAPE_READS = frozenset({"in", "attr", "children", "top", "at"})


def shape_read(dep: Dependency) -> str:
    """A read of the shape (``("in", name)``, a kind of :data:`SHAPE_READS`) as records keep
    it: ``"in:name"`` (:meth:`analyzer.resolve.shape.ShapeChanges.touches` reads them)."""
    if dep[0] == "attr":  # (module, name): whether module.name is a module
        return f"in:{dep[1]}.{dep[2]}"
    return f"{dep[0]}:{dep[1]}"
_T = TypeVar("_T")


@dataclass
class Binding:
    fact: ImportFact
    imported: str | None  # the name in `from m import name`, None for `import m`

    @property
    def type_only(self) -> bool:
        return TYPE_CHECKING in self.fact.context


class ModuleIndex:
    """All Python modules of the scanned tree, with their bindings, and name resolution."""

    def __init__(self, modules: list[PyModule], extensions: dict[str, str] | None = None):
        self.modules: dict[str, PyModule] = {m.name: m for m in modules}
        # which names are modules, packages, extension modules (module name -> the CMake
        # target building it), packages only the build creates; what each package holds
        self.shape = shape = tree_shape(((m.name, m.path, m.is_package) for m in modules),
                                        extensions)
        self.extensions: dict[str, str] = shape.extensions
        self.by_path: dict[str, str] = shape.by_path
        self.packages: set[str] = shape.packages  # every package, incl. namespace packages
        self.children: dict[str, list[str]] = shape.children
        self.installed_packages: set[str] = shape.installed_packages
        self.top_level: set[str] = shape.top_level
        # (module, name) pairs whose import binding resolution went through outside a
        # module's recorded edges (the graph stage attributes those to their module)
        self.reexports_used: set[tuple[str, str]] = set()
        # what pure functions of the modules' facts computed (the checks' tables): shared by
        # the copies of ``with_dead_lines``, whose modules are the same
        self.tree_memo: dict[str, Any] = {}
        # memo tables of the pure lookups (cleared when dead_lines changes)
        self._is_module: dict[str, bool] = {}
        self._absolute: dict[tuple[str, int, str], str | None] = {}
        self._path_modules: dict[str, str] = {}
        self._lookups: dict[tuple[str, str, str], list[Binding] | str | None] = {}
        self._attrs: dict[tuple[str, str], Target] = {}
        # what each memoized resolve_attr/lookup depended on (Dependency items), and the
        # open recordings (``recording``): a memo hit records them again
        self._attr_deps: dict[tuple[str, str], frozenset[Dependency]] = {}
        self._lookup_deps: dict[tuple[str, str, str], Dependency] = {}
        self._frames: list[set[Dependency]] = []
        self._recordings = 0  # open recording() blocks: their re-exports are theirs
        # open recording(shape=True) blocks: reads of the shape are noted only inside one
        # (an edge record keeps them; nothing else asks), and what a memo table kept
        # outside one is resolved again when asked inside (:meth:`resolve_attr`)
        self._shaping = 0
        self._attr_unshaped: set[tuple[str, str]] = set()  # _attrs made outside one
        # names a stage looked up tree-wide by name, not by import (an attribute any module
        # may set, a class any module may subclass): shared by the copies, so a scan can
        # tell whether a file it did not parse could have answered (analyzer.extract.demand)
        self.sought_by_name: set[str] = set()
        # module -> line ranges folded away (with_dead_lines): an import binding there does
        # not count when the name has another one
        self._dead_lines: dict[str, list[tuple[int, int]]] = {}
        self._dead_reads: dict[str, list[tuple[int, int, frozenset[str]]]] = {}
        for m in modules:
            if not m.indexed:
                index_bindings(m)

    @property
    def dead_lines(self) -> dict[str, list[tuple[int, int]]]:
        return self._dead_lines

    @property
    def dead_reads(self) -> dict[str, list[tuple[int, int, frozenset[str]]]]:
        """Module -> (first, last line, reads): what a folded conditional-expression arm
        sharing its lines alone reads there (chains, ``.attribute`` names)."""
        return self._dead_reads

    def dead_read(self, module: str, read: str, line: int) -> bool:
        """``read`` (a chain or ``.attribute``) on ``line`` is only a folded arm's."""
        return any(s <= line <= e and read in reads
                   for s, e, reads in self._dead_reads.get(module, ()))

    def with_dead_lines(self, dead: dict[str, list[tuple[int, int]]],
                        reads: dict[str, list[tuple[int, int, frozenset[str]]]] | None = None
                        ) -> ModuleIndex:
        """This index with ``dead`` (module -> line ranges folded away) deciding which binding
        of a name resolution prefers: a copy sharing the modules, with its own memo tables
        and its own record of the re-exports resolution goes through (``reexports_used``)."""
        copy = object.__new__(ModuleIndex)
        copy.__dict__.update(self.__dict__)
        copy._dead_lines = {m: sorted(r) for m, r in dead.items()}
        copy._dead_reads = dict(reads or {})
        copy._lookups = {}
        copy._attrs = {}
        copy._attr_deps = {}
        copy._lookup_deps = {}
        copy._frames = []
        copy._recordings = 0
        copy._shaping = 0
        copy._attr_unshaped = set()
        copy.reexports_used = set()
        return copy

    @contextmanager
    def recording(self, shape: bool = False) -> Iterator[set[Dependency]]:
        """What resolution inside the block depends on (memo hits included), as a set filled
        as it goes: the re-exports it goes through (``("reexport", module, name)``), the
        names bound twice or more whose order the dead lines decide (``("order", module,
        scope, name)``; :meth:`binding_flags`) and every module whose facts it read
        (``("module", module)``; :meth:`module`). One module's edges depend on nothing else
        of the tree's folds, and -- the module names, paths and extension modules being the
        same -- on no other module's facts. ``shape``: also what it reads of the tree's
        shape (``SHAPE_READS``: a module's edge record)."""
        self._recordings += 1
        self._shaping += shape
        try:
            with self.noting() as frame:
                yield frame
        finally:
            self._recordings -= 1
            self._shaping -= shape

    @contextmanager
    def noting(self, shape: bool = False) -> Iterator[set[Dependency]]:
        """What :meth:`recording` notes, for a reader that is no resolution of its own (guard
        folding): the re-exports it goes through still count as used, as outside a
        recording. ``shape``: its reads of the tree's shape too (a module's fold record:
        ``analyzer.decide.fold_reuse``)."""
        frame: set[Dependency] = set()
        self._frames.append(frame)
        self._shaping += shape
        try:
            yield frame
        finally:
            self._shaping -= shape
            self._frames.pop()
            if self._frames:
                self._frames[-1].update(frame)

    def resolved_once(self, key: Hashable, compute: Callable[[], _T],
                      memo: dict[Any, Any] | None = None) -> _T:
        """``compute()`` -- a function of this tree's resolution, whatever it resolves -- kept
        for the copies of :meth:`with_dead_lines` (in ``memo``, default ``tree_memo``, under
        ``key``): another copy gets it again while every name bound twice or more that the
        resolution read has its bindings folded alike (:meth:`same_orders`), with what
        resolving again would note (the re-exports it went through, the dependencies of an
        open recording)."""
        store: dict[Any, Any] = self.tree_memo if memo is None else memo
        known = store.get(key)
        if known is not None:
            value, orders, deps, shaped = known
            # (its reads of the shape are not kept -- tens of thousands on the largest trees,
            # rarely asked for again: a value that read some, or was made where they were not
            # noted, is computed again inside a recording(shape=True))
            if self.same_orders(orders) and not (shaped and self._shaping):
                if self._frames:
                    self._frames[-1].update(deps)
                if not self._recordings:
                    self.reexports_used.update((d[1], d[2]) for d in deps if d[0] == "reexport")
                return value  # type: ignore[no-any-return]
        with self.recording() as used:
            value = compute()
        if not self._recordings:  # (inside the block, re-exports went to the recording only)
            self.reexports_used.update((d[1], d[2]) for d in used if d[0] == "reexport")
        kept = frozenset(d for d in used if d[0] not in SHAPE_READS)
        # (shaped: it read the shape, or was computed where no read of it was noted)
        store[key] = (value, self.orders_of(used), kept,
                      len(kept) != len(used) or not self._shaping)
        return value

    def orders_of(self, deps: Iterable[Dependency]) -> dict[tuple[str, str, str],
                                                             tuple[bool, ...]]:
        """The :meth:`binding_flags` of each name bound twice or more that ``deps`` (what a
        :meth:`recording` noted) read: what the resolution depends on of the folds."""
        return {(d[1], d[2], d[3]): self.binding_flags(d[1], d[2], d[3]) for d in deps
                if d[0] == "order"}

    def same_orders(self, orders: Mapping[tuple[str, str, str], tuple[bool, ...]]) -> bool:
        """These folds leave each of ``orders`` (:meth:`orders_of`) as it was: a resolution
        that depended on them resolves alike."""
        return all(self.binding_flags(*dep) == flags for dep, flags in orders.items())

    def binding_flags(self, module: str, scope: str, name: str) -> tuple[bool, ...]:
        """Which bindings of ``name`` (in ``scope``, "" for the module) are folded away:
        :meth:`lookup` prefers the others, so equal flags resolve alike."""
        mod = self.modules[module]
        pairs = mod.scoped.get(scope, {}).get(name, []) if scope else mod.bindings.get(name, [])
        ranges = self._dead_lines.get(module, ())
        return tuple(any(s <= f.start_line <= e for s, e in ranges) for f, _ in pairs)

    # -- modules -------------------------------------------------------------------------------
    def module(self, name: str) -> PyModule | None:
        """The module ``name`` (None when the tree has no such file), its facts read: inside
        a :meth:`recording`, a dependency on them."""
        if self._frames:
            self._frames[-1].add(("module", name))
        return self.modules.get(name)

    # -- the tree's shape (which dotted names are modules, packages, extension modules; which
    # -- top-level names and package folders exist; which file a path names): inside a
    # -- ``recording(shape=True)`` (a module's edges) every such read is noted, ``(kind,
    # -- name)`` with a kind of :data:`SHAPE_READS`, so that a record made in a tree of
    # -- another shape holds where none of its answers changed (analyzer.graph.edge_store)
    def _shape(self, kind: str, name: str) -> None:
        if self._shaping:
            self._frames[-1].add((kind, name))

    def is_module(self, name: str) -> bool:
        self._shape("in", name)
        return self._is_module_known(name)

    def _is_module_known(self, name: str) -> bool:
        """:meth:`is_module` without noting the read (its caller notes it)."""
        known = self._is_module.get(name)
        if known is None:
            # inside a package only the build creates, the tree cannot see: take it as it is
            known = self._is_module[name] = name in self.modules or name in self.packages \
                or name in self.extensions \
                or any(name.startswith(p + ".") for p in self.installed_packages)
        return known

    def has_module(self, name: str) -> bool:
        """A file of the tree is the module ``name`` (not a folder, not an extension)."""
        self._shape("in", name)
        return name in self.modules

    def is_package_name(self, name: str) -> bool:
        """``name`` is a package: a folder of modules (namespace packages too) or a package
        only the build installs."""
        self._shape("in", name)
        return name in self.packages

    def built_here(self, name: str) -> bool:
        """``name`` is a package only the build installs, or an extension module."""
        self._shape("in", name)
        return name in self.installed_packages or name in self.extensions

    def children_of(self, package: str) -> list[str]:
        """The modules and packages directly inside ``package`` (sorted)."""
        self._shape("children", package)
        return self.children.get(package, [])

    def is_internal(self, dotted: str) -> bool:
        head = dotted.split(".")[0]
        self._shape("top", head)
        return head in self.top_level

    def submodules(self, package: str, recursive: bool) -> list[str]:
        out: list[str] = []
        stack = list(self.children_of(package))
        while stack:
            name = stack.pop(0)
            out.append(name)
            if recursive:
                stack.extend(self.children_of(name))
        return out

    def ancestors_with_files(self, module: str) -> list[str]:
        parts = module.split(".")
        return [p for i in range(1, len(parts)) if self.has_module(p := ".".join(parts[:i]))]

    def absolute(self, importer: str, fact: ImportFact) -> str | None:
        """Absolute dotted name of the module an import statement names."""
        if self._shaping:  # (what the answer reads of the shape: noted on every call)
            self._absolute_reads(importer, fact)
        key = (importer, fact.level, fact.module)
        try:
            return self._absolute[key]
        except KeyError:
            found = self._absolute[key] = self._absolute_of(importer, fact)
            return found

    def _absolute_reads(self, importer: str, fact: ImportFact) -> None:
        """Note what :meth:`_absolute_of` may read of the shape (a superset, from the key
        alone: the answers are memoised without their reads): the importer (a package or
        not), and for an absolute import :meth:`_sibling`'s names -- a read added there is
        added here."""
        self._shape("in", importer)
        package = importer.rpartition(".")[0]
        if fact.level or not package:
            return
        head = fact.module.partition(".")[0]
        self._shape("in", head)
        self._shape("in", f"{package}.{head}")
        at = package.find(".")
        while at >= 0:
            self._shape("in", package[:at])
            at = package.find(".", at + 1)
        self._shape("in", package)

    def _absolute_of(self, importer: str, fact: ImportFact) -> str | None:
        if fact.level == 0:
            return self._sibling(importer, fact.module) or fact.module
        mod = self.modules.get(importer)
        base_parts = importer.split(".")
        if not (mod and mod.is_package):
            base_parts = base_parts[:-1]
        drop = fact.level - 1
        if drop > len(base_parts):
            return None
        base = base_parts[: len(base_parts) - drop] if drop else base_parts
        return ".".join([*base, fact.module] if fact.module else base) or None

    def _sibling(self, importer: str, module: str) -> str | None:
        """A bare ``import name`` that no top-level module answers, from a module no regular
        package holds (a script, a test pytest runs with its folder on ``sys.path``): the
        file beside it (``from test_ocr import Case`` in ``tests/xpu/``). A top-level
        namespace package of that name (a folder ``utils/`` without ``__init__.py`` under a
        source root) loses to the file: Python takes a namespace package only when no entry
        of ``sys.path`` has a module of the name. A module of a regular package that runs as
        a script (``if __name__ == "__main__":``, run as ``python dir/script.py``: its folder
        is ``sys.path[0]``) finds the file beside it too."""
        head = module.partition(".")[0]
        package = importer.rpartition(".")[0]
        if not package or head in self.modules or head in self.extensions:
            return None
        parts = package.split(".")
        own = self.modules.get(importer)
        runs = own is not None and own.facts.main_guard_line is not None
        if not runs and any(".".join(parts[:i]) in self.modules
                            for i in range(1, len(parts) + 1)):
            return None  # inside a regular package (a folder of one without __init__.py is
            #              a namespace package of it): imported by its dotted name, not run
        sibling = f"{package}.{module}"
        return sibling if f"{package}.{head}" in self.modules or \
            f"{package}.{head}" in self.packages else None

    # -- imports -------------------------------------------------------------------------------
    def import_targets(self, importer: str, fact: ImportFact) -> list[Target]:
        """Modules an import statement executes (the statement's own edges)."""
        absolute = self.absolute(importer, fact)
        if absolute is None:
            return [Target("unresolved", "." * fact.level + fact.module)]
        if not self.is_internal(absolute):
            return [Target("external", absolute)]
        targets: list[Target] = []
        if self.is_module(absolute):
            targets.append(Target("module", absolute))
        else:
            targets.append(Target("unresolved", absolute))
        if fact.is_from:
            for imported in fact.names:
                sub = f"{absolute}.{imported.name}"
                if imported.name != "*" and self.is_module(sub):
                    targets.append(Target("module", sub))
        return targets

    # -- names ---------------------------------------------------------------------------------
    def lookup(self, module: str, scope: str, head: str) -> list[Binding] | str | None:
        """What ``head`` means in ``scope`` of ``module``: import bindings, "def", or None.
        (The returned list is shared: callers must not change it.)"""
        key = (module, scope, head)
        if key not in self._lookups:
            self._lookups[key] = self._lookup(module, scope, head)
        if self._frames:
            frame = self._frames[-1]
            frame.add(("module", module))
            dep = self._lookup_deps.get(key)
            if dep is not None:
                frame.add(dep)
        return self._lookups[key]

    def _lookup(self, module: str, scope: str, head: str) -> list[Binding] | str | None:
        mod = self.modules[module]
        scoped = mod.scoped.get(scope, {}).get(head) if scope else None
        if scoped:
            if len(scoped) > 1:
                self._lookup_deps[(module, scope, head)] = ("order", module, scope, head)
            return self._live_first(module, [Binding(f, n) for f, n in scoped])
        if head in mod.defs:
            return "def"
        if head in mod.bindings:
            if len(mod.bindings[head]) > 1:
                self._lookup_deps[(module, scope, head)] = ("order", module, "", head)
            return self._live_first(module, [Binding(f, n) for f, n in mod.bindings[head]])
        return None

    def _live_first(self, module: str, bindings: list[Binding]) -> list[Binding]:
        """Bindings of one name, ordered so the last one (the one resolution uses) is not in a
        folded-away branch when another is (`if _is_cuda: from a import f else: from b …`)."""
        ranges = self.dead_lines.get(module)
        if not ranges or len(bindings) < 2:
            return bindings

        def dead(b: Binding) -> bool:
            return any(s <= b.fact.start_line <= e for s, e in ranges)
        return sorted(bindings, key=lambda b: not dead(b))

    def resolve_chain(self, module: str, scope: str, chain: str) -> tuple[Target, bool] | None:
        """Resolve a dotted chain read in ``scope``; returns (target, type_only) or None for
        builtins, locals and anything that is not a module-level name."""
        parts = chain.split(".")
        found = self.lookup(module, scope, parts[0])
        if found is None:
            return None
        if found == "def":
            return self._def_target(module, parts[0]), False
        assert isinstance(found, list)
        binding = found[-1]
        target = self._binding_target(module, binding, parts[0])
        return self._descend(target, parts[1:]), binding.type_only

    def resolve_chain_all(self, module: str, scope: str, chain: str
                          ) -> list[tuple[Target, bool, int]]:
        """Every target a dotted chain read in ``scope`` may name at run time: the module's
        own definition and each import binding of the head (a name bound in two branches,
        ``if c: from a import f`` / ``else: from b import f``, may be either). Items are
        (target, type_only, line of the binding import or 0)."""
        parts = chain.split(".")
        mod = self.module(module)
        assert mod is not None
        head = parts[0]
        scoped = mod.scoped.get(scope, {}).get(head) if scope else None
        out: list[tuple[Target, bool, int]] = []
        if scoped:
            pairs = scoped
        else:
            if head in mod.defs:
                out.append((self._descend(self._def_target(module, head), parts[1:]), False, 0))
            pairs = mod.bindings.get(head, [])
        for fact, imported in pairs:
            binding = Binding(fact, imported)
            target = self._binding_target(module, binding, head)
            out.append((self._descend(target, parts[1:]), binding.type_only, fact.start_line))
        return out

    def module_at(self, path: str) -> str | None:
        """The module a relative path to a Python file names (``pkg/mod.py``, or a longer
        path ending so: ``python/pkg/mod.py`` from the repository root), or None when no file
        or more than one ends so."""
        self._shape("at", path)
        found = self._path_modules.get(path)
        if found is None:
            # the files ``path`` ends (``p`` is one of its tails) and those ending in it
            hits = {tail for tail in path_tails(path) if tail in self.by_path}
            hits.update(self._by_tail().get(path, ()))
            found = self._path_modules[path] = \
                self.by_path[next(iter(hits))] if len(hits) == 1 else ""
        return found or None

    def _by_tail(self) -> dict[str, list[str]]:
        """Each tail of a file's path (the path itself, and what follows each ``/`` in it)
        -> the files whose path ends so: :meth:`module_at` without a pass over every file."""
        tails: dict[str, list[str]] | None = self.tree_memo.get("path_tails")
        if tails is None:
            tails = self.tree_memo["path_tails"] = {}
            for p in self.by_path:
                for tail in path_tails(p):
                    tails.setdefault(tail, []).append(p)
        return tails

    def resolve_dotted(self, dotted: str) -> Target:
        """Resolve an absolute dotted path (``pkg.mod``, ``pkg.mod.Class``, ``pkg.mod:Class``)."""
        dotted = dotted.replace(":", ".")
        if not self.is_internal(dotted):
            return Target("external", dotted)
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            prefix = ".".join(parts[:i])
            if self.is_module(prefix):
                return self._descend(Target("module", prefix), parts[i:])
        return Target("unresolved", dotted)

    def resolve_attr(self, module: str, name: str, seen: frozenset[str] = frozenset()) -> Target:
        """``module.name``: submodule, definition, re-exported import, or star-imported name."""
        if self._frames:  # (its own reads, hit or not: its facts, its shape and the name's)
            frame = self._frames[-1]
            frame.add(("module", module))
            if self._shaping:
                frame.add(("in", module))
                frame.add(("attr", module, name))
        if seen:  # inside a re-export chain: cycle detection needs the path, no memo
            return self._resolve_attr(module, name, seen)
        key = (module, name)
        target = self._attrs.get(key)
        if target is not None and self._shaping and key in self._attr_unshaped:
            self._attr_unshaped.discard(key)  # (its reads of the shape were not noted)
            target = None
        if target is not None:
            reused = self._attr_deps.get(key)
            if reused and self._frames:
                self._frames[-1].update(reused)
            if reused and not self._recordings:
                self.reexports_used.update((d[1], d[2]) for d in reused if d[0] == "reexport")
            return target
        self._frames.append(set())
        try:
            target = self._attrs[key] = self._resolve_attr(module, name, seen)
        finally:
            used = self._frames.pop()
        if not self._shaping:
            self._attr_unshaped.add(key)
        if used:
            self._attr_deps[key] = frozenset(used)
            if self._frames:
                self._frames[-1].update(used)
        elif key in self._attr_deps:  # (made again: nothing of the last answer's holds)
            del self._attr_deps[key]
        return target

    def _reexport(self, module: str, name: str) -> None:
        if not self._recordings:  # inside a recording, the recorded module's own
            self.reexports_used.add((module, name))
        if self._frames:
            self._frames[-1].add(("reexport", module, name))

    def _resolve_attr(self, module: str, name: str, seen: frozenset[str]) -> Target:
        sub = f"{module}.{name}"
        if self._is_module_known(sub):  # (noted by resolve_attr)
            return Target("module", sub)
        mod = self.modules.get(module)
        if module in self.installed_packages:  # built, not in the tree: the package itself
            return Target("module", module)
        if mod is None:  # namespace package: only submodules live there
            return Target("unresolved", module, name)
        if name in mod.defs:
            if name in mod.bindings:  # also imported in another branch: that import is used
                self._reexport(module, name)
            return self._def_target(module, name)
        key = f"{module}:{name}"
        if key in seen:
            return Target("attribute", module, name)
        seen = seen | {key}
        if name in mod.bindings:
            self._reexport(module, name)
            if len(mod.bindings[name]) > 1 and self._frames:
                self._frames[-1].add(("order", module, "", name))
            binding = self._live_first(module, [Binding(f, n) for f, n in mod.bindings[name]])[-1]
            target = self._binding_target(module, binding, name, seen)
            if target.kind in ("module", "symbol", "attribute", "external"):
                return Target(target.kind, target.module, target.name, (module, *target.via))
        if name in mod.assigned:  # e.g. `try: from ._version import v except: v = "0"`
            return Target("attribute", module, name)
        for star in mod.star_imports:
            source = self.absolute(module, star)
            if source and self.is_internal(source) and self.is_module(source):
                target = self.resolve_attr(source, name, seen)
                if target.kind in ("module", "symbol", "attribute"):
                    return Target(target.kind, target.module, target.name, (module, *target.via))
        return Target("unresolved", module, name)

    def _def_target(self, module: str, name: str) -> Target:
        kind = self.modules[module].defs[name]
        if kind in ("function", "class"):
            return Target("symbol", module, name)
        return Target("attribute", module, name)

    def _binding_target(self, module: str, binding: Binding, bound: str,
                        seen: frozenset[str] = frozenset()) -> Target:
        fact = binding.fact
        absolute = self.absolute(module, fact)
        if absolute is None:
            return Target("unresolved", fact.module)
        if not fact.is_from:
            # `import a.b.c` binds `a`; `import a.b.c as d` binds `d` -> a.b.c
            target_mod = absolute if fact.alias else bound
            if not self.is_internal(target_mod):
                return Target("external", target_mod)
            return Target("module", target_mod) if self.is_module(target_mod) else Target(
                "unresolved", target_mod)
        if not self.is_internal(absolute):
            return Target("external", absolute)
        if not self.is_module(absolute):
            return Target("unresolved", absolute, binding.imported)
        return self.resolve_attr(absolute, binding.imported or bound, seen)

    def _descend(self, target: Target, rest: list[str]) -> Target:
        """Follow attribute access through modules; stop at the first non-module."""
        via = target.via
        for i, part in enumerate(rest):
            if target.kind != "module":
                break
            nxt = self.resolve_attr(target.module, part)
            if nxt.kind == "unresolved":
                if part.startswith("__"):  # __path__, __name__, __file__ ...
                    return target
                return Target("unresolved", target.module, ".".join(rest[i:]), via)
            via = via + nxt.via
            target = Target(nxt.kind, nxt.module, nxt.name, via)
        return target
