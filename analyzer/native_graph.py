"""Graph stage, native half: CUDA/C++ files, torch ops, CMake targets and fetched repos,
bridged to the Python graph.

Nodes: ``file:<path>`` (C/C++/CUDA source or header), ``cmake:<path>``, ``target:<name>``,
``fetch:<name>``, ``op:<namespace>::<name>``; and ``py:<pkg>.<target>`` (kind ``extension``)
for each installed extension module, created with the Python graph so imports resolve to it.

Edges (u live => v live):
- ``torch_op``      a Python scope reads ``torch.ops.<ns>.<op>`` -> the op
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
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

import networkx as nx

from analyzer.cmake_model import CMakeProject, CMakeTarget
from analyzer.extract.cmake import CmakeFacts
from analyzer.extract.cuda import CudaFacts
from analyzer.resolve import ModuleIndex, module_node

TU_SUFFIXES = (".cu", ".cc", ".cpp", ".cxx", ".c")
_FETCH_DIR = re.compile(r"\$\{([A-Za-z0-9_.+\-]+)_SOURCE_DIR\}")


def file_node(path: str) -> str:
    return f"file:{path}"


def cmake_node(path: str) -> str:
    return f"cmake:{path}"


def target_node(name: str) -> str:
    return f"target:{name}"


def fetch_node(name: str) -> str:
    return f"fetch:{name}"


def op_node(namespace: str, name: str) -> str:
    return f"op:{namespace}::{name.split('.')[0]}"


def is_tu(path: str) -> bool:
    return path.endswith(TU_SUFFIXES)


def extension_modules(project: CMakeProject) -> dict[str, str]:
    """Python module name -> target name, from ``install(TARGETS t ... DESTINATION pkg)``."""
    out: dict[str, str] = {}
    for t in project.targets:
        if t.install_destination:
            package = t.install_destination.strip("/").replace("/", ".")
            out.setdefault(f"{package}.{t.name}", t.name)
    return out


@dataclass
class NativeIndex:
    """What the native half knows, for the plan stage."""

    facts: dict[str, CudaFacts]
    project: CMakeProject
    compiled_by: dict[str, list[str]] = field(default_factory=dict)  # source -> targets
    kernels: set[str] = field(default_factory=set)  # op-implementing TUs
    namespaces: set[str] = field(default_factory=set)
    unresolved: list[dict[str, object]] = field(default_factory=list)


def add_native_graph(graph: nx.DiGraph, index: ModuleIndex, facts: dict[str, CudaFacts],
                     project: CMakeProject, cmake: dict[str, CmakeFacts],
                     lines: dict[str, int]) -> NativeIndex:
    native = NativeIndex(facts, project)
    for path in sorted(facts):
        graph.add_node(file_node(path), kind="native_file", path=path, tu=is_tu(path),
                       lines=lines.get(path, 0))
    for path in sorted(cmake):
        graph.add_node(cmake_node(path), kind="cmake_file", path=path, lines=lines.get(path, 0))
    for f in project.fetches:
        graph.add_node(fetch_node(f.name), kind="fetch", name=f.name, path=f.file,
                       start_line=f.start_line, end_line=f.end_line, url=f.url)
        _edge(graph, fetch_node(f.name), cmake_node(f.file), "defined_in", f.file, f.start_line)
    for t in project.targets:
        graph.add_node(target_node(t.name), kind="target", name=t.name, path=t.file,
                       start_line=t.start_line, end_line=t.end_line,
                       install_destination=t.install_destination, conditions=t.conditions)
        for s in t.sources:
            if s.path:
                native.compiled_by.setdefault(s.path, []).append(t.name)
    _add_ops(graph, native)
    for t in project.targets:
        _add_target_edges(graph, native, t)
    _add_includes(graph, native)
    _add_cmake_includes(graph, project)
    by_name = {t.name: t for t in project.targets}
    for ext, target in extension_modules(project).items():
        t = by_name[target]
        _edge(graph, module_node(ext), target_node(target), "built_by", t.file, t.start_line)
    _add_python_ops(graph, index, native)
    _add_installed_packages(graph, index, project, cmake)
    return native


def _edge(graph: nx.DiGraph, u: str, v: str, kind: str, file: str, line: int) -> None:
    if u != v and u in graph and v in graph and not graph.has_edge(u, v):
        graph.add_edge(u, v, kind=kind, file=file, line=line)


def _add_ops(graph: nx.DiGraph, native: NativeIndex) -> None:
    definitions: dict[str, list[str]] = {}
    for path, f in native.facts.items():
        for fn in f.functions:
            if fn.is_definition:
                definitions.setdefault(fn.name, []).append(path)
    registering = {p for p, f in native.facts.items() if f.ops}
    for path in sorted(native.facts):
        for op in native.facts[path].ops:
            node = op_node(op.namespace, op.op_name)
            native.namespaces.add(op.namespace)
            if node not in graph:
                graph.add_node(node, kind="op", namespace=op.namespace,
                               name=op.op_name.split(".")[0], path=path, start_line=op.line)
            _edge(graph, node, file_node(path), "registered_in", path, op.line)
            if op.function:
                short = op.function.split("::")[-1]
                for def_path in definitions.get(short, []):
                    _edge(graph, node, file_node(def_path), "implemented_in", path, op.line)
                    if def_path not in registering and is_tu(def_path):
                        native.kernels.add(def_path)


def _add_target_edges(graph: nx.DiGraph, native: NativeIndex, t: CMakeTarget) -> None:
    me = target_node(t.name)
    _edge(graph, me, cmake_node(t.file), "defined_in", t.file, t.start_line)
    for name in t.fetches:
        _edge(graph, me, fetch_node(name), "uses_fetch", t.file, t.start_line)
    for s in t.sources:
        if not s.path:
            continue
        src = file_node(s.path)
        _edge(graph, src, me, "compiled_by", s.file, s.line)
        if s.path not in native.kernels:
            _edge(graph, me, src, "compiles", s.file, s.line)


def _add_includes(graph: nx.DiGraph, native: NativeIndex) -> None:
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


def _add_cmake_includes(graph: nx.DiGraph, project: CMakeProject) -> None:
    declaring = {t.file for t in project.targets} | {f.file for f in project.fetches}
    for inc in project.includes:
        if inc.to_file and inc.to_file not in declaring:
            _edge(graph, cmake_node(inc.from_file), cmake_node(inc.to_file), "cmake_include",
                  inc.from_file, inc.line)


def _add_installed_packages(graph: nx.DiGraph, index: ModuleIndex, project: CMakeProject,
                            cmake: dict[str, CmakeFacts]) -> None:
    providers: dict[str, list[tuple[str, str, int]]] = {}  # package -> (node, file, line)
    for t in project.targets:
        if t.install_destination:
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


def _add_python_ops(graph: nx.DiGraph, index: ModuleIndex, native: NativeIndex) -> None:
    for name in sorted(index.modules):
        mod = index.modules[name]
        for ref in mod.facts.references:
            parts = ref.chain.split(".")
            if len(parts) < 4 or parts[0] != "torch" or parts[1] != "ops":
                continue
            if parts[2] not in native.namespaces:
                continue  # ops of third-party libraries (flashinfer, vllm ...)
            node = op_node(parts[2], parts[3])
            src = module_node(name)
            scoped = f"{src}:{ref.scope}" if ref.scope else src
            if scoped in graph:
                src = scoped
            if node in graph:
                _edge(graph, src, node, "torch_op", mod.path, ref.line)
            else:
                native.unresolved.append({"path": mod.path, "line": ref.line, "kind": "torch_op",
                                          "name": f"torch.ops.{parts[2]}.{parts[3]}"})
