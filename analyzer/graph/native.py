"""Graph stage, native half: CUDA/C++ files, torch ops, CMake targets and fetched repos,
bridged to the Python graph.

Nodes: ``file:<path>`` (C/C++/CUDA source or header), ``cmake:<path>``, ``target:<name>``,
``fetch:<name>``, ``op:<namespace>::<name>``; and ``py:<pkg>.<target>`` (kind ``extension``)
for each installed extension module, created with the Python graph so imports resolve to it.

Edges (u live => v live):
- ``torch_op``      a Python scope reads ``torch.ops.<ns>.<op>`` (or ``getattr(torch.ops.<ns>,
                    "<op>")``) -> the op; a read of a whole namespace (``torch.ops.<ns>``
                    bound, passed to ``getattr`` with a computed name ...) -> every op of it,
                    and of ``torch.ops`` itself -> every op. A read that only asks whether an
                    op exists (``hasattr(torch.ops.ns, name)``, or a local bound to
                    ``getattr(torch.ops, ns, None)`` that is only tested and passed to
                    ``hasattr``) makes no edge
- ``built_by``      an extension module -> the target that builds it
- ``registered_in`` an op -> the file whose TORCH_LIBRARY block registers it
- ``implemented_in`` an op -> the file defining the C++ function linked by m.impl/m.def
- ``compiled_by``   a source file -> every target compiling it
- ``compiles``      a target -> its support sources: every source except op kernels (files
                    that define an op's function and register nothing); kernels stay live
                    only through their ops, so a live target can lose a dead kernel
- ``includes``      a file -> a header it includes (resolved against the including file's
                    folder, then the include directories of the targets)
- ``defined_in``    a target or fetched repo -> the CMake file declaring it
- ``uses_fetch``    a target -> a fetched repository it uses
- ``cmake_include`` a CMake file -> an included .cmake/subdirectory file that declares no
                    target (helpers live with their includer; target files live with a target)
- ``installed_by``  a package the build creates (``py:deep_gemm``, kind
                    ``installed_package``, or a third-party-looking ``ext:triton_kernels``) ->
                    the targets installed into it and the fetched repositories whose folders
                    ``install(DIRECTORY ...)`` copies into it
- ``links``         a target -> an in-tree target it links, depends on (``add_dependencies``)
                    or names in ``$<TARGET_...:name>``
- ``links_fetched`` a target linking a library no in-tree target defines -> every repository
                    fetched with ``FetchContent_MakeAvailable`` (its CMake may define it)
- ``same_call``     targets created by one call of a user function, both ways: deleting the
                    call removes all of them, so they live and die together

Forced CMake options (a dropped feature's ``cmake_options``; ``CMakeTarget.off``,
``SourceRef.off``, ``FetchRepo.off``): a target the build does not create with them (every
definition of the name ``off``) gets no ``built_by``, ``installed_by`` or ``compiled_by`` edge,
so nothing but ``--keep-target``, a linking target or a call it shares makes it live; a source
entry listed only under a false condition gives no ``compiled_by``/``compiles`` edge; a
repository never fetched gets no ``links_fetched`` edge. Such sources are
``NativeIndex.off_sources`` (the build knew them), not ``compiled_by``.

What cannot be resolved is kept: ``NativeIndex.kept_roots`` lists nodes that must stay live
whatever the roots (the plan stage adds them to the live set; each is also listed in
``unresolved``):
- ops registered under a namespace that is not a literal (``TORCH_EXTENSION_NAME``,
  ``CONCAT(...)``, a ``#define``d or ``-D`` name, a wrapper macro whose definition is not in
  the tree or does not pass the name through): any ``torch.ops.<x>`` may reach them;
- targets nothing is shown to load (not installed into a package Python imports, not linked
  by another target) and targets created by a function call that cannot be removed alone:
  with their sources and the ops those register (as ``--keep-target`` does).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from analyzer.extract.cmake import CmakeFacts
from analyzer.extract.cuda import CudaFacts, MacroDefine, OpRegistration
from analyzer.nodes import (
    Graph,
    NativeEdgeKind,
    add_edge,
    cmake_node,
    fetch_node,
    file_node,
    module_node,
    op_node,
    target_node,
)
from analyzer.resolve.cmake_model import CMakeProject, CMakeTarget, extension_modules
from analyzer.resolve.python import ModuleIndex, PyModule

TU_SUFFIXES = (".cu", ".cc", ".cpp", ".cxx", ".c")
_FETCH_DIR = re.compile(r"\$\{([A-Za-z0-9_.+\-]+)_SOURCE_DIR\}")
PLAIN_BLOCKS = frozenset({"TORCH_LIBRARY", "TORCH_LIBRARY_FRAGMENT", "TORCH_LIBRARY_IMPL"})
# set by the build, never written in the sources (torch.utils.cpp_extension, CMake helpers)
BUILD_MACROS = frozenset({"TORCH_EXTENSION_NAME"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WRAPPER_BODY = re.compile(r"^(\w+)\s*\(\s*(\w+)\s*[,)]")
_DEFINITION = re.compile(r"(?:^|[\s;\"])-D([A-Za-z_][A-Za-z0-9_]*)")
_DEFINING_COMMANDS = frozenset({"target_compile_definitions", "add_compile_definitions",
                                "add_definitions"})
_LINK_NOT_A_TARGET = re.compile(r"^(-|/|\$<|.*\.(so|a|dylib|lib)$)")












def is_tu(path: str) -> bool:
    return path.endswith(TU_SUFFIXES)


@dataclass
class NativeIndex:
    """What the native half knows, for the plan stage."""

    facts: dict[str, CudaFacts]
    project: CMakeProject
    compiled_by: dict[str, list[str]] = field(default_factory=dict)  # source -> targets
    # sources only listed where the forced options turn the build off (targets not built,
    # entries under a false if()): the build knew them, nothing compiles them
    off_sources: set[str] = field(default_factory=set)
    off_targets: dict[str, str] = field(default_factory=dict)  # target -> why it is not built
    kernels: set[str] = field(default_factory=set)  # op-implementing TUs
    namespaces: set[str] = field(default_factory=set)  # literal (resolved) namespaces only
    unresolved: list[dict[str, object]] = field(default_factory=list)
    cmake: dict[str, CmakeFacts] = field(default_factory=dict)  # commands of every CMake file
    # namespace as written -> why it is not a literal (its ops are kept live)
    unresolved_namespaces: dict[str, str] = field(default_factory=dict)
    kept_roots: list[str] = field(default_factory=list)  # live whatever the roots
    kept_targets: dict[str, str] = field(default_factory=dict)  # target -> why it is kept


def python_namespaces(index: ModuleIndex) -> set[str]:
    """Every ``<ns>`` some Python file of the tree reads as ``torch.ops.<ns>``."""
    return {ns for mod in index.modules.values() for ns, _op, _s, _l in torch_ops_reads(mod)
            if ns}


def build_macros(facts: dict[str, CudaFacts], cmake: dict[str, CmakeFacts]
                 ) -> tuple[set[str], dict[str, list[MacroDefine]]]:
    """Names that are macros (``#define``d in the tree, ``-D`` / compile definitions in CMake,
    or set by the build) and the definitions of function-like macros naming TORCH_LIBRARY*."""
    names = set(BUILD_MACROS)
    wrappers: dict[str, list[MacroDefine]] = {}
    for f in facts.values():
        for d in f.defines:
            names.add(d.name)
            if d.params is not None and d.body:
                wrappers.setdefault(d.name, []).append(d)
    for cf in cmake.values():
        for c in cf.commands:
            for i, a in enumerate(c.args):
                names.update(_DEFINITION.findall(a.value))
                if c.name == "target_compile_definitions" and (
                        i == 0 or a.value in ("PRIVATE", "PUBLIC", "INTERFACE")):
                    continue  # the target, a scope keyword: no definitions
                if c.name in _DEFINING_COMMANDS:
                    head = a.value.removeprefix("-D").split("=", 1)[0]
                    if _IDENT.fullmatch(head):
                        names.add(head)
    return names, wrappers


def namespace_problem(op: OpRegistration, macros: set[str],
                      wrappers: dict[str, list[MacroDefine]], py_namespaces: set[str]
                      ) -> str | None:
    """Why ``op.namespace`` may not be the literal namespace torch sees (None: it is)."""
    ns = op.namespace
    if not _IDENT.fullmatch(ns):
        return f"namespace {ns} is a macro expression"
    if ns in macros:
        return f"namespace {ns} is a macro (defined by the build or in the tree)"
    macro = op.macro or op.block
    if macro not in PLAIN_BLOCKS and not _passes_through(macro, wrappers, 0):
        return (f"block macro {macro} is not defined in the tree as a TORCH_LIBRARY* macro "
                "taking the namespace unchanged")
    if not any(ch.islower() for ch in ns) and ns not in py_namespaces:
        return (f"namespace {ns} looks like a macro (no lowercase letter) and no Python reads "
                f"torch.ops.{ns}")
    return None


def _passes_through(macro: str, wrappers: dict[str, list[MacroDefine]], depth: int) -> bool:
    defs = wrappers.get(macro)
    if not defs or depth > 4:
        return False
    for d in defs:  # every definition (one per header) must pass the name straight on
        m = _WRAPPER_BODY.match(d.body)
        if m is None or not d.params or m.group(2) != d.params[0]:
            return False
        inner = m.group(1)
        if inner not in PLAIN_BLOCKS and not _passes_through(inner, wrappers, depth + 1):
            return False
    return True


def torch_ops_reads(mod: PyModule) -> tuple[tuple[str | None, str | None, str, int], ...]:
    """``(namespace, op, scope, line)`` of each read of ``torch.ops`` in a module, aliases
    followed (``import torch as th``, ``from torch import ops``, ``from torch.ops import _C``):
    op None for a whole namespace, namespace None for ``torch.ops`` itself. A pure function
    of the module's facts: computed once per module, kept in ``mod.own``."""
    known = mod.own.get("torch_ops_reads")
    if known is None:
        known = mod.own["torch_ops_reads"] = tuple(_torch_ops_reads(mod))
    return known


def _torch_ops_reads(mod: PyModule) -> list[tuple[str | None, str | None, str, int]]:
    aliases: dict[str, str] = {}
    for fact in mod.facts.imports:
        if fact.level:
            continue
        if not fact.is_from:
            if fact.alias and (fact.module == "torch" or fact.module.startswith("torch.")):
                aliases[fact.alias] = fact.module
            continue
        if fact.module == "torch" or fact.module.startswith("torch."):
            for n in fact.names:
                if n.name != "*":
                    aliases[n.alias or n.name] = f"{fact.module}.{n.name}"
    # module-level `kernel = torch.ops.sgl_kernel` (bound once): `kernel.op` reads op; the
    # assignment itself reads nothing whole
    bound: dict[str, int] = {}
    for a in mod.facts.assigns:
        bound[a.name] = bound.get(a.name, 0) + 1
    ns_aliases = {a.name: (a.cond.value, a.line) for a in mod.facts.assigns
                  if a.cond.kind == "name" and bound[a.name] == 1
                  and (a.cond.value == "torch.ops" or a.cond.value.startswith("torch.ops."))
                  and a.name not in aliases}
    defined = {(chain, line) for chain, line in ns_aliases.values()} | {
        (name, line) for name, (_chain, line) in ns_aliases.items()}  # its target, as read
    for name, (chain, _line) in ns_aliases.items():
        aliases[name] = chain
    # getattr(torch.ops, p) with p a parameter: the namespaces the callers pass
    # (analyzer.resolve.call_args, kept in mod.derived["param_values"] by the resolve stage)
    passed: dict[tuple[str, int], frozenset[str] | None] = mod.derived.get("param_values", {})
    out: list[tuple[str | None, str | None, str, int]] = []
    for ref in mod.facts.references:
        if not ref.scope and (ref.chain, ref.line) in defined and not ref.also:
            continue
        head, _, rest = ref.chain.partition(".")
        chain = aliases.get(head, head) + ("." + rest if rest else "")
        parts = chain.split(".")
        if len(parts) < 2 or parts[0] != "torch" or parts[1] != "ops":
            continue
        ns = parts[2] if len(parts) > 2 else None
        op = parts[3] if len(parts) > 3 else None
        lines = (ref.line, *ref.also)
        if ns is None and lines and all(passed.get((ref.scope, ln)) for ln in lines) and all(
                pg.template == "{}" for pg in mod.facts.param_getattrs if pg.line in lines):
            out.extend((value, None, ref.scope, ref.line)
                       for value in sorted(set().union(*(passed[(ref.scope, ln)] or ()
                                                         for ln in lines))))
            continue
        out.append((ns, op, ref.scope, ref.line))
    return out


def add_native_graph(graph: Graph, index: ModuleIndex, facts: dict[str, CudaFacts],
                     project: CMakeProject, cmake: dict[str, CmakeFacts],
                     lines: dict[str, int], system_libraries: tuple[str, ...] = ()
                     ) -> NativeIndex:
    """``system_libraries``: patterns of libraries the build machine provides (the profile's
    ``system_libraries``): linking them gives no ``links_fetched`` edge."""
    native = NativeIndex(facts, project, cmake=cmake)
    for path in sorted(facts):
        graph.add_node(file_node(path), kind="native_file", path=path, tu=is_tu(path),
                       lines=lines.get(path, 0))
    for path in sorted(cmake):
        graph.add_node(cmake_node(path), kind="cmake_file", path=path, lines=lines.get(path, 0))
    native.off_targets = off_targets(project)
    for f in project.fetches:
        graph.add_node(fetch_node(f.name), kind="fetch", name=f.name, path=f.file,
                       start_line=f.start_line, end_line=f.end_line, url=f.url, off=f.off)
        _edge(graph, fetch_node(f.name), cmake_node(f.file), "defined_in", f.file, f.start_line)
    for t in project.targets:
        graph.add_node(target_node(t.name), kind="target", name=t.name, path=t.file,
                       start_line=t.start_line, end_line=t.end_line,
                       install_destination=t.install_destination, conditions=t.conditions,
                       off=native.off_targets.get(t.name))
        for s in t.sources:
            if s.path and (t.off or s.off):
                native.off_sources.add(s.path)
            elif s.path:
                native.compiled_by.setdefault(s.path, []).append(t.name)
    for path in native.compiled_by:
        native.off_sources.discard(path)
    _add_ops(graph, native, index)
    for t in project.targets:
        _add_target_edges(graph, native, t)
    _add_target_links(graph, project, system_libraries)
    _add_includes(graph, native)
    _add_cmake_includes(graph, project)
    by_name = {t.name: t for t in project.targets}
    for ext, target in extension_modules(project).items():
        if target in native.off_targets:
            continue  # not built: importing it cannot load it
        t = by_name[target]
        _edge(graph, module_node(ext), target_node(target), "built_by", t.file, t.start_line)
    _add_python_ops(graph, index, native)
    _add_installed_packages(graph, index, project, cmake)
    _keep_unknown_targets(graph, native, python_imports(index))
    return native


def off_targets(project: CMakeProject) -> dict[str, str]:
    """Targets the build does not create with the forced options: every definition of the
    name is ``off`` (name -> why, the first definition's reason)."""
    defs: dict[str, list[CMakeTarget]] = {}
    for t in project.targets:
        defs.setdefault(t.name, []).append(t)
    return {name: ts[0].off for name, ts in defs.items()
            if ts[0].off is not None and all(t.off for t in ts)}


def _edge(graph: Graph, u: str, v: str, kind: NativeEdgeKind, file: str, line: int) -> None:
    if u != v and u in graph and v in graph and not graph.has_edge(u, v):
        add_edge(graph, u, v, kind, file, line)


def _add_ops(graph: Graph, native: NativeIndex, index: ModuleIndex) -> None:
    macros, wrappers = build_macros(native.facts, native.cmake)
    py_namespaces = python_namespaces(index)
    definitions: dict[str, list[str]] = {}
    for path, f in native.facts.items():
        for fn in f.functions:
            if fn.is_definition:
                definitions.setdefault(fn.name, []).append(path)
    registering = {p for p, f in native.facts.items() if f.ops}
    for path in sorted(native.facts):
        reported: set[str] = set()
        for op in native.facts[path].ops:
            node = op_node(op.namespace, op.op_name)
            problem = namespace_problem(op, macros, wrappers, py_namespaces)
            if problem is None:
                native.namespaces.add(op.namespace)
            else:
                native.unresolved_namespaces.setdefault(op.namespace, problem)
                native.kept_roots.append(node)
                if op.namespace not in reported:
                    reported.add(op.namespace)
                    native.unresolved.append({
                        "path": path, "line": op.line, "kind": "op_namespace",
                        "name": op.namespace,
                        "reason": f"{problem}: any torch.ops.<name> may call its ops; every "
                                  "registration under it is kept"})
            if node not in graph:
                graph.add_node(node, kind="op", namespace=op.namespace,
                               name=op.op_name.split(".")[0], path=path, start_line=op.line,
                               resolved=problem is None)
            if path in native.off_sources:
                continue  # compiled only where the build skips it: it registers nothing
            _edge(graph, node, file_node(path), "registered_in", path, op.line)
            if op.function:
                short = op.function.split("::")[-1]
                for def_path in definitions.get(short, []):
                    if def_path in native.off_sources:
                        continue  # compiled only where the build skips it
                    _edge(graph, node, file_node(def_path), "implemented_in", path, op.line)
                    if def_path not in registering and is_tu(def_path):
                        native.kernels.add(def_path)


def _add_target_edges(graph: Graph, native: NativeIndex, t: CMakeTarget) -> None:
    me = target_node(t.name)
    _edge(graph, me, cmake_node(t.file), "defined_in", t.file, t.start_line)
    if t.off and t.name not in native.off_targets:
        return  # a definition the build skips while another of the name is built (the CPU
        # `_C` under if(VLLM_TARGET_DEVICE STREQUAL "cpu") next to the CUDA one)
    for name in t.fetches:
        _edge(graph, me, fetch_node(name), "uses_fetch", t.file, t.start_line)
    for s in t.sources:
        if not s.path or (s.off and not t.off):
            continue  # an entry under a false if(): not compiled
        src = file_node(s.path)
        if not t.off:  # a target not built compiles nothing: a live source keeps it not
            _edge(graph, src, me, "compiled_by", s.file, s.line)
        if s.path not in native.kernels:
            _edge(graph, me, src, "compiles", s.file, s.line)


def _add_target_links(graph: Graph, project: CMakeProject,
                      system_libraries: tuple[str, ...] = ()) -> None:
    names = {t.name for t in project.targets}
    available = [f for f in project.fetches if f.make_available and f.off is None]
    by_site: dict[tuple[str, int], list[CMakeTarget]] = {}
    off = off_targets(project)
    for t in project.targets:
        if t.off and t.name not in off:
            continue  # a definition the build skips while another of the name is built
        me = target_node(t.name)
        for other in (*t.links, *t.depends):
            if other in names:
                _edge(graph, me, target_node(other), "links", t.file, t.start_line)
        if any(is_external_library(x, names, system_libraries) for x in t.links):
            for f in available:  # the fetched project's CMake may define what it links
                _edge(graph, me, fetch_node(f.name), "links_fetched", t.file, t.start_line)
        if t.call_site is not None:
            by_site.setdefault((t.call_site.file, t.call_site.start_line), []).append(t)
    for (file, line), group in by_site.items():
        for a in group:
            for b in group:
                _edge(graph, target_node(a.name), target_node(b.name), "same_call", file, line)


def is_external_library(item: str, in_tree: set[str],
                        system_libraries: tuple[str, ...] = ()) -> bool:
    """A ``target_link_libraries`` item naming a library no in-tree target defines (flags,
    paths and library files are not target names), and that is not one of the
    ``system_libraries`` patterns (a fetched repository's CMake may define it)."""
    return item not in in_tree and not _LINK_NOT_A_TARGET.match(item) \
        and not any(fnmatchcase(item, p) for p in system_libraries)


def python_imports(index: ModuleIndex) -> frozenset[str]:
    """Every dotted name some Python file of the tree imports (``import a.b``: ``a.b``;
    ``from a import b``: ``a`` and ``a.b``) or passes to ``importlib.import_module``, wherever
    it sits (dead, folded or guarded code included): how Python would load a module. A
    function of the modules' facts: computed once per tree."""
    known: frozenset[str] | None = index.tree_memo.get("python_imports")
    if known is None:
        known = index.tree_memo["python_imports"] = frozenset(_python_imports(index))
    return known


def _python_imports(index: ModuleIndex) -> set[str]:
    out: set[str] = set()
    for name, mod in index.modules.items():
        for fact in mod.facts.imports:
            absolute = index.absolute(name, fact)
            if absolute is None:
                continue
            out.add(absolute)
            if fact.is_from:
                out.update(f"{absolute}.{n.name}" for n in fact.names if n.name != "*")
        out.update(s.value for s in mod.facts.strings if s.kind == "import_module")
    return out


def _keep_unknown_targets(graph: Graph, native: NativeIndex, imported: frozenset[str]) -> None:
    """Targets nothing is shown to load are kept whole (sources and their ops); so are targets
    created by a function call that cannot be removed alone."""
    project = native.project
    groups: dict[str, list[CMakeTarget]] = {}
    for t in project.targets:
        groups.setdefault(t.name, []).append(t)
    known = {name for name in groups if _loader_known(graph, name, imported)}
    stack = sorted(known)
    while stack:  # a call's targets share their fate: one known loader covers all
        node = target_node(stack.pop())
        for v in graph.successors(node):
            if graph.edges[node, v]["kind"] != "same_call":
                continue
            other: str = graph.nodes[v]["name"]  # a target, as every same_call end is
            if other not in known:
                known.add(other)
                stack.append(other)
    for name, defs in sorted(groups.items()):
        if name in native.off_targets:
            continue  # not built: nothing to keep
        why = None
        stuck = next((t for t in defs if t.created_in and t.call_site is None), None)
        if stuck is not None:
            why = (f"created inside {stuck.created_in}() by a call that cannot be removed "
                   "alone")
        elif name not in known:
            why = ("nothing is shown to load it: not installed into a package Python imports, "
                   "not linked by another target")
        if why is None:
            continue
        native.kept_targets[name] = why
        native.kept_roots.append(target_node(name))
        for t in defs:
            if t.off:
                continue  # a definition the build skips: its sources are no part of it
            for s in t.sources:
                if s.path and s.path in native.facts:
                    native.kept_roots.append(file_node(s.path))
                    native.kept_roots.extend(op_node(op.namespace, op.op_name)
                                             for op in native.facts[s.path].ops)
        t = defs[0]
        native.unresolved.append({"path": t.file, "line": t.start_line, "kind": "target",
                                  "name": name, "reason": f"{why}; kept with its sources and "
                                  "ops"})


def _loader_known(graph: Graph, name: str, imported: frozenset[str]) -> bool:
    """Python imports the module (or the build-created package) it is installed as, or
    another target links or depends on it."""
    node = target_node(name)
    for u in graph.predecessors(node):
        kind = graph.edges[u, node]["kind"]
        if kind == "links":
            return True
        if kind not in ("built_by", "installed_by"):
            continue
        module = graph.nodes[u].get("module") or u.partition(":")[2]
        if any(p != node for p in graph.predecessors(u)) or module in imported \
                or any(i.startswith(module + ".") for i in imported):
            return True
    return False


def _add_includes(graph: Graph, native: NativeIndex) -> None:
    include_dirs: list[str] = []
    for t in native.project.targets:
        include_dirs.extend(d for d in t.include_dirs if not d.startswith(("@", "$")))
    include_dirs = list(dict.fromkeys(include_dirs))
    known = set(native.facts)
    for path in sorted(native.facts):
        here = posixpath.dirname(path)
        for inc in native.facts[path].includes:
            bases = include_dirs if inc.system else [here, *include_dirs]
            candidates = [posixpath.normpath(posixpath.join(d, inc.target)) for d in bases]
            hit = next((c for c in candidates if c in known), None)
            if hit:
                _edge(graph, file_node(path), file_node(hit), "includes", path, inc.line)


def _add_cmake_includes(graph: Graph, project: CMakeProject) -> None:
    declaring = {t.file for t in project.targets} | {f.file for f in project.fetches}
    for inc in project.includes:
        if any(b.file == inc.from_file and b.start_line <= inc.line <= b.end_line
               for b in project.off_blocks):
            continue  # under an if() the forced options turn off: the build never reads it
        if inc.to_file and inc.to_file not in declaring:
            _edge(graph, cmake_node(inc.from_file), cmake_node(inc.to_file), "cmake_include",
                  inc.from_file, inc.line)


def _add_installed_packages(graph: Graph, index: ModuleIndex, project: CMakeProject,
                            cmake: dict[str, CmakeFacts]) -> None:
    providers: dict[str, list[tuple[str, str, int]]] = {}  # package -> (node, file, line)
    off = off_targets(project)
    for t in project.targets:
        if t.install_destination and t.name not in off:
            package = t.install_destination.strip("/").split("/")[0]
            providers.setdefault(package, []).append((target_node(t.name), t.file, t.start_line))
    for path, facts in cmake.items():
        for c in facts.commands:
            if c.name != "install" or not any(a.value == "DIRECTORY" for a in c.args):
                continue
            values = [a.value for a in c.args]
            if "DESTINATION" not in values[:-1]:
                continue
            package = values[values.index("DESTINATION") + 1].strip('"/').split("/")[0]
            for fetch in _FETCH_DIR.findall(" ".join(values)):
                providers.setdefault(package, []).append((fetch_node(fetch), path, c.start_line))
    for package, nodes in providers.items():
        if package in index.installed_packages:
            src = module_node(package)
        elif package not in index.top_level:
            src = f"ext:{package}"
        else:
            continue  # in-tree packages: imports of `pkg.<target>` resolve exactly
        for node, file, line in nodes:
            _edge(graph, src, node, "installed_by", file, line)


def _add_python_ops(graph: Graph, index: ModuleIndex, native: NativeIndex) -> None:
    by_namespace: dict[str, list[str]] = {}
    for node, data in graph.nodes(data=True):
        if data.get("kind") == "op" and data.get("resolved"):
            by_namespace.setdefault(data["namespace"], []).append(node)

    for name in sorted(index.modules):
        mod = index.modules[name]
        for ns, op, scope, line in torch_ops_reads(mod):
            if ns is not None and ns not in native.namespaces:
                continue  # ops of third-party libraries (flashinfer, vllm ...)
            src = module_node(name)
            scoped = f"{src}:{scope}" if scope else src
            if scoped in graph:
                src = scoped
            if ns is None or op is None:  # torch.ops / torch.ops.<ns> read whole
                spaces = sorted(by_namespace) if ns is None else [ns]
                for n in spaces:
                    for node in sorted(by_namespace.get(n, [])):
                        _edge(graph, src, node, "torch_op", mod.path, line)
                continue
            node = op_node(ns, op)
            if node in graph:
                _edge(graph, src, node, "torch_op", mod.path, line)
            else:
                native.unresolved.append({"path": mod.path, "line": line, "kind": "torch_op",
                                          "name": f"torch.ops.{ns}.{op}"})
