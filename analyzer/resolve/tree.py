"""Resolve stage: the scanned tree as the stages after extraction see it -- per-file info, Python
modules in an index, C/C++/CUDA and CMake facts, the evaluated CMake project -- and the
deletion scope (what may be edited, what goes whole or stays whole, what was not understood).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from analyzer.core.store import Query, key_of
from analyzer.discover.test_files import is_test_path
from analyzer.discover.walk import Discovery, file_module_name
from analyzer.extract.cache import stored_facts
from analyzer.extract.cmake import CmakeFacts
from analyzer.extract.cuda import CudaFacts
from analyzer.extract.python_fstrings import with_own_name
from analyzer.extract.runner import ExtractedFile
from analyzer.model import FileInfo, ParseProblem
from analyzer.resolve import cmake as cmake_eval
from analyzer.resolve.call_args import resolve_param_getattrs
from analyzer.resolve.cmake_model import CMakeProject, extension_modules
from analyzer.resolve.cmake_paths import PathReads, Reads
from analyzer.resolve.op_namespaces import resolve_op_namespaces
from analyzer.resolve.python import ModuleIndex, PyModule, py_module

_PROJECT_ENTRY, _PROJECT_KIND = "<cmake project>", "cmake-project"  # its facts-cache key
# evaluations kept per CMake files and options (the newest first), each with what it read
_PROJECTS_KEPT = 8
CMAKE_PROJECT = Query("cmake-project", code=("analyzer.resolve",))
# problems that leave a file not (wholly) understood: it is kept, never planned
UNPARSED_KINDS = frozenset({"syntax-error", "binary", "invalid-utf8", "unreadable",
                            "symlink-loop"})


@dataclass
class Tree:
    files: dict[str, FileInfo]
    modules: list[PyModule]
    index: ModuleIndex
    native_facts: dict[str, CudaFacts]
    cmake_facts: dict[str, CmakeFacts]
    project: CMakeProject
    problems: list[ParseProblem]


@dataclass(frozen=True)
class Scope:
    """Deletion scope: modules of regular top-level packages (an ``__init__.py`` at the top)
    are edited; every other Python file (tests, scripts, benchmarks, examples) is
    ``peripheral``: it goes whole or stays whole, and what it imports must keep existing
    (``frozen``). ``unparsed`` files are never planned."""

    tests: frozenset[str]
    in_scope: frozenset[str]
    peripheral: frozenset[str]
    frozen: frozenset[str]
    unparsed: frozenset[str]


def build_tree(found: Discovery, extracted: list[ExtractedFile],
               cmake_options: Mapping[str, bool | str] | None = None,
               sources: Mapping[str, bytes] | None = None) -> Tree:
    """Resolve stage over the extracted facts: the module index and the CMake project
    (evaluated with ``cmake_options`` forced: the dropped features' CMake option values), and
    the op namespaces the build defines per target (``TORCH_EXTENSION_NAME``). The evaluated
    project is stored (see :func:`evaluate_cmake`)."""
    problems = list(found.problems)
    files: dict[str, FileInfo] = {}
    modules: list[PyModule] = []
    native_facts: dict[str, CudaFacts] = {}
    cmake_facts: dict[str, CmakeFacts] = {}
    for ex in extracted:
        problems.extend(ex.problems)
        files[ex.path] = FileInfo(ex.path, ex.sha256, ex.lines, ex.language)
        if ex.facts is None:
            continue
        if ex.language == "cuda":
            native_facts[ex.path] = ex.facts
            continue
        if ex.language == "cmake":
            cmake_facts[ex.path] = ex.facts
            continue
        name = file_module_name(ex.path, found.python_roots)
        if name is None:
            continue
        is_package = ex.path.endswith("/__init__.py") or ex.path == "__init__.py"
        # import_module(f"{__name__}.x") names x under this module: its name is known here
        modules.append(py_module(name, ex.path, is_package, with_own_name(ex.facts, name)))
    modules = _dedupe(modules, problems)
    project = evaluate_cmake(cmake_facts, files, cmake_options)
    problems.extend(project.problems)
    native_facts = resolve_op_namespaces(native_facts, project)
    index = ModuleIndex(modules, extension_modules(project))
    # getattr(obj, p) with p a parameter: what the callers pass (the modules' derived facts)
    for (module, scope, line), values in resolve_param_getattrs(
            index, sources or {}, {p: f.sha256 for p, f in files.items()}).items():
        index.modules[module].derived.setdefault("param_values", {})[(scope, line)] = values
    return Tree(files, modules, index, native_facts, cmake_facts, project, problems)


def evaluate_cmake(cmake_facts: dict[str, CmakeFacts], files: Mapping[str, FileInfo],
                   options: Mapping[str, bool | str] | None) -> CMakeProject:
    """The CMake project, evaluated -- or read back from the store: evaluation is a pure
    function of the CMake files' bytes, the set of paths (``file(GLOB)``) and the forced
    options, which together are its key (the query ``cmake-project``'s version holds the code's)."""
    return evaluate_cached(cmake_facts, {p: files[p].sha256 for p in cmake_facts}, files,
                           options)


def evaluate_cached(cmake_facts: Mapping[str, CmakeFacts], digests: Mapping[str, str],
                    files: Collection[str], options: Mapping[str, bool | str] | None,
                    stored: bool = True) -> CMakeProject:
    """:func:`evaluate_cmake` of CMake files given with the sha256 of their bytes
    (``digests``, by path): also a build a plan leaves, whose edited files are parsed again
    from their pruned bytes (``analyzer.plan.check.native_view``); ``stored=False``: not
    stored (the digests of some of the files are not known). The entry of the CMake files
    and options holds the last evaluations with what each read of the paths
    (``analyzer.resolve.cmake_paths``): one whose answers ``files`` gives again is the
    project, the evaluation not run again."""
    cache = stored_facts() if stored else None
    if cache is None:
        return cmake_eval.evaluate(dict(cmake_facts), frozenset(files), options=options)
    key = key_of(sorted((p, digests[p]) for p in cmake_facts), sorted((options or {}).items()))
    stored_value = cache.get(_PROJECT_ENTRY, key, _PROJECT_KIND, CMAKE_PROJECT)
    kept: tuple[tuple[Reads, CMakeProject], ...] = \
        stored_value if isinstance(stored_value, tuple) else ()
    paths = files if isinstance(files, (set, frozenset)) else frozenset(files)
    asked = PathReads(paths)  # (the answers of ``paths``, shared by the kept reads)
    for reads, known in kept:
        if reads.hold_for(asked):
            return known
    project, reads = cmake_eval.evaluate_reading(dict(cmake_facts), paths, options=options)
    cache.put(_PROJECT_ENTRY, key, _PROJECT_KIND, ((reads, project), *kept)[:_PROJECTS_KEPT],
              CMAKE_PROJECT)
    return project


def deletion_scope(tree: Tree, test_globs: tuple[str, ...]) -> Scope:
    modules = tree.modules
    tests = frozenset(m.path for m in modules if is_test_path(m.path, test_globs))
    in_scope = frozenset(m.path for m in modules if m.path not in tests
                         and (top := tree.index.modules.get(m.name.split(".")[0])) is not None
                         and top.is_package)
    peripheral = frozenset(m.path for m in modules) - in_scope
    frozen = frozenset(m.name for m in modules if m.path in peripheral)
    unparsed = frozenset(p.path for p in tree.problems if p.kind in UNPARSED_KINDS)
    return Scope(tests, in_scope, peripheral, frozen, unparsed)


def _dedupe(modules: list[PyModule], problems: list[ParseProblem]) -> list[PyModule]:
    """Two files claiming one module name (e.g. copies in two roots): keep the first."""
    seen: dict[str, PyModule] = {}
    for m in modules:
        if m.name in seen:
            problems.append(ParseProblem(m.path, 0, "duplicate-module",
                                         f"module {m.name} also defined by {seen[m.name].path}; "
                                         "this copy is ignored"))
            continue
        seen[m.name] = m
    return list(seen.values())


def evaluated(tree: Tree, forced: Mapping[str, bool | str]) -> Tree:
    """``tree`` with its CMake project evaluated with ``forced`` options (the others as the
    tree sets them), and op namespaces resolved against it."""
    project = evaluate_cmake(tree.cmake_facts, tree.files, forced)
    return dataclasses.replace(tree, project=project,
                               native_facts=resolve_op_namespaces(tree.native_facts, project))
