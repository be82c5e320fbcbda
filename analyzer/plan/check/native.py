"""Plan stage, soundness, native half: what "broken" means for the build -- the checks the
plan's soundness rounds run on the build a plan would leave, and ``depgraph verify`` on the
build of a pruned tree read back from disk.

A :class:`NativeState` is one build as the checks see it: the native index of its CUDA/C++
facts and evaluated CMake project, the files that exist, and the ``torch.ops`` reads of the
Python code that remains. ``native_baseline(state)`` records, as JSON-able data, what the
original build holds: every op registration (namespace as written, whether it is a literal,
op, kind, file, line), every fetched repository (with the variables derived from it), every
target (the variables, fetched repositories and libraries it uses; why it was kept when
nothing showed it unused), the variables the tree defines and every ``function()``/
``macro()`` body. The manifest stores it with the verify baseline.

``native_breaks(baseline, state)`` lists, as :class:`~analyzer.plan.check.breaks.Break`
values naming what each needs:

- a registration that is gone while its namespace is not a literal (any ``torch.ops.<x>``
  may call it), or while remaining Python still calls the op or reads its namespace whole;
- a ``torch.ops.<ns>.<op>`` read of remaining Python where ``<ns>`` is registered but
  ``<op>`` no longer is;
- a remaining target using a fetched repository (its sources, include directories, or a
  variable derived from it) whose declaration is gone; a remaining non-target command using
  such a variable; a remaining target linking a library no in-tree target defines while a
  ``FetchContent_MakeAvailable``d repository (which may define it) is gone;
- a remaining target linking or depending on an in-tree target that no longer exists, and a
  remaining command reading a variable the tree set and no longer sets;
- a target the original scan kept as unresolved (nothing showed it unused) that is gone;
- a ``function()``/``macro()`` whose body lost a command, or that is still called but no
  longer defined;
- a target listing a source that is not in the tree, an ``include()``/``add_subdirectory()``
  of an in-tree path that is gone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from analyzer.extract.cmake import CMakeCommand
from analyzer.graph.native import NativeIndex, is_external_library, off_targets, torch_ops_reads
from analyzer.model import Ranges
from analyzer.plan.check.breaks import Break
from analyzer.plan.cmake_vars import (
    VAR_REF,
    defined_var,
    derived_vars,
    fetch_own_ranges,
    mention_pattern,
)
from analyzer.plan.native import function_bodies
from analyzer.resolve.cmake_model import CMakeTarget
from analyzer.resolve.python import ModuleIndex

BASELINE_VERSION = 1
_DECLARE = ("fetchcontent_declare", "externalproject_add")
_MISSING_SOURCE = re.compile(r"^source of (.+?): no such file in the repository: (.+)$")
# variables that point inside the tree: an include() through them that misses is a break
_IN_TREE_VARS = ("${CMAKE_CURRENT_LIST_DIR}", "${CMAKE_CURRENT_SOURCE_DIR}",
                 "${PROJECT_SOURCE_DIR}", "${CMAKE_SOURCE_DIR}")

# (namespace or None: torch.ops read whole, op or None: the namespace read whole, where)
OpRead = tuple[str | None, str | None, str, int]


@dataclass
class NativeState:
    """One build as the native checks see it."""

    native: NativeIndex
    files: frozenset[str]  # every path of the tree
    op_reads: list[OpRead] = field(default_factory=list)  # of the Python code that remains
    system_libraries: tuple[str, ...] = ()


def op_reads(index: ModuleIndex, modules: list[str],
             gone: dict[str, Ranges] | None = None) -> list[OpRead]:
    """The ``torch.ops`` reads of ``modules``, outside the lines ``gone`` (by path) removes."""
    out: list[OpRead] = []
    for name in sorted(modules):
        mod = index.modules[name]
        removed = (gone or {}).get(mod.path)
        for ns, op, _scope, line in torch_ops_reads(mod):
            if removed is None or not removed.covers(line, line):
                out.append((ns, op, mod.path, line))
    return out


def native_baseline(state: NativeState) -> dict[str, Any]:
    """What the original tree's build holds, for :func:`native_breaks` (JSON-able)."""
    native = state.native
    project = native.project
    commands = {p: list(f.commands) for p, f in sorted(native.cmake.items())}
    ops = [{"namespace": op.namespace, "resolved": op.namespace not in
            native.unresolved_namespaces,
            "reason": native.unresolved_namespaces.get(op.namespace), "op": op.op_name,
            "kind": op.kind, "file": path, "line": op.line}
           for path in sorted(native.facts) for op in native.facts[path].ops
           # a file only definitions the build skips list (the CPU `_C` on a CUDA build)
           # registers nothing there
           if path not in native.off_sources]
    fetches = []
    derived: dict[str, frozenset[str]] = {}
    states = _fetch_states(native)
    for f in project.fetches:
        derived[f.name] = derived_vars(f.name, native.cmake, by_name=False)
        fetches.append({"name": f.name, "file": f.file, "line": f.start_line,
                        "make_available": f.make_available,
                        "populated": "populated" in states.get(f.name, ()),
                        "declared": "declared" in states.get(f.name, ()),
                        "primary": sorted(_primary_vars(f.name, commands)),
                        "derived": sorted(derived[f.name])})
    targets: dict[str, dict[str, Any]] = {}
    skipped = off_targets(project)
    for t in project.targets:
        if t.off and t.name not in skipped:
            continue  # a definition the build skips while another of the name is built
        entry = targets.setdefault(t.name, {
            "name": t.name, "file": _where(t)[0], "line": _where(t)[1], "variables": [],
            "fetches": [], "links": [], "depends": [],
            "kept": native.kept_targets.get(t.name)})
        # a repository it uses: in its sources/include directories, through a variable set
        # from one, or through a variable named after one (``${CUTLASS_INCLUDE_DIR}``, which
        # a made-available repository's own CMake may set)
        used = set(t.fetches) | {name for name, names in derived.items()
                                 if names & set(t.variables)
                                 or any(mention_pattern(name).search(v) for v in t.variables)}
        # a link to a target the build never creates (dnnl_ext of the CPU build) is none
        links = [x for x in t.links if x not in skipped]
        for key, values in (("variables", t.variables), ("fetches", sorted(used)),
                            ("links", links), ("depends", t.depends)):
            entry[key] = sorted(set(entry[key]) | set(values))
    return {
        "version": BASELINE_VERSION,
        "ops": ops,
        "fetches": fetches,
        "targets": [targets[n] for n in sorted(targets)],
        "defined_variables": sorted(_defined_variables(native)),
        "functions": _functions(commands),
    }


def native_breaks(baseline: dict[str, Any] | None, state: NativeState) -> list[Break]:
    """The breaks of the build ``state`` against the original's ``baseline`` (the source,
    include and op-call checks need none)."""
    out: list[Break] = [*_missing_files(state), *_op_calls(state)]
    if not baseline or baseline.get("version") != BASELINE_VERSION:
        return out
    out.extend(_check_ops(state, baseline))
    out.extend(_check_fetches(state, baseline))
    out.extend(_check_targets(state, baseline))
    out.extend(_check_functions(state, baseline))
    return out


# -- files --------------------------------------------------------------------------------------
def _missing_files(state: NativeState) -> list[Break]:
    project = state.native.project
    out: list[Break] = []
    for t in project.targets:
        for s in t.sources:
            if s.path is not None and s.path not in state.files:
                out.append(Break("cmake-source", s.file, s.line, f"target {t.name} lists "
                                 f"{s.raw}: no such file ({s.path})", "file", s.path))
    for u in project.unresolved:
        m = _MISSING_SOURCE.match(u.reason)
        if m:
            out.append(Break("cmake-source", u.file, u.line, f"target {m.group(1)} lists "
                             f"{u.what}: no such file ({m.group(2)})", "file", m.group(2)))
    for inc in project.includes:
        if inc.to_file is not None or not _in_tree(inc.raw):
            continue
        what = ("no CMakeLists.txt there" if inc.kind == "add_subdirectory"
                else "no such file")
        out.append(Break("cmake-include", inc.from_file, inc.line,
                         f"{inc.kind}({inc.raw}): {what}", "include", inc.raw))
    return out


def _in_tree(raw: str) -> bool:
    raw = raw.strip('"')
    if "$<" in raw or raw.startswith("/"):
        return False
    if raw.startswith(_IN_TREE_VARS):
        return "${" not in raw.split("}", 1)[1]
    return "${" not in raw


# -- ops ----------------------------------------------------------------------------------------
def registered_ops(native: NativeIndex) -> set[tuple[str, str]]:
    """(namespace, op) of every registration the build compiles."""
    return {(op.namespace, op.op_name.split(".")[0]) for path, f in native.facts.items()
            if path not in native.off_sources for op in f.ops}


def _op_calls(state: NativeState) -> list[Break]:
    """``torch.ops.<ns>.<op>`` reads where ``<ns>`` is registered but ``<op>`` is not (an op
    registered only in files the build skips is registered nowhere either)."""
    native = state.native
    registered = registered_ops(native)
    out: list[Break] = []
    for ns, op, path, line in state.op_reads:
        if ns is None or op is None or ns not in native.namespaces or (ns, op) in registered:
            continue
        out.append(Break("op-call", path, line, f"torch.ops.{ns}.{op}: op {op} is "
                         f"registered nowhere in namespace {ns}", "op", f"{ns}::{op}"))
    return out


def _check_ops(state: NativeState, baseline: dict[str, Any]) -> list[Break]:
    native = state.native
    left = Counter((op.namespace, op.op_name, op.kind, path)
                   for path, facts in native.facts.items() for op in facts.ops)
    calls: dict[tuple[str, str], str] = {}
    whole: dict[str, str] = {}
    everything: str | None = None
    for ns, op, path, line in state.op_reads:
        where = f"{path}:{line}"
        if ns is None:
            everything = everything or where
        elif op is None:
            whole.setdefault(ns, where)
        else:
            calls.setdefault((ns, op), where)
    registered = registered_ops(native)
    out: list[Break] = []
    for reg in baseline["ops"]:
        key = (reg["namespace"], reg["op"], reg["kind"], reg["file"])
        if left[key] > 0:
            left[key] -= 1
            continue
        ns, op = reg["namespace"], reg["op"]
        spelled = f'm.{reg["kind"]}("{op}") in namespace {ns}'
        node = f"{ns}::{op.split('.')[0]}"
        if not reg["resolved"]:
            out.append(Break("cmake-op", reg["file"], reg["line"], f"{spelled} was removed, "
                             f"but the namespace is not a literal ({reg['reason']}): Python "
                             "may call it, so its registrations are never deleted", "op", node))
            continue
        base = op.split(".")[0]
        reader = calls.get((ns, base)) or whole.get(ns) or everything
        if reader is None:
            continue
        if (ns, base) in calls and ns in native.namespaces and (ns, base) not in registered:
            continue  # _op_calls reports the call site: op registered nowhere in ns
        how = (f"calls torch.ops.{ns}.{base}" if (ns, base) in calls
               else f"reads torch.ops.{ns} whole" if ns in whole else "reads torch.ops whole")
        out.append(Break("cmake-op", reg["file"], reg["line"], f"{spelled} was removed, but "
                         f"Python that remains still {how} ({reader})", "op", node))
    return out


def read_cmake_files(native: NativeIndex) -> set[str]:
    """The CMake files a configure of the tree may read: every ``CMakeLists.txt`` and what an
    ``include()``/``add_subdirectory()`` of a file it reads names, transitively (a ``.cmake``
    file whose last include went is read by nothing). An include in the tree that did not
    resolve may name any file: then every file counts as read."""
    edges: dict[str, list[str]] = {}
    for e in native.project.includes:
        if e.to_file is None and not e.raw.startswith(("$", "/")) and "/" not in e.raw:
            continue  # a module of CMake's own (include(FetchContent))
        if e.to_file is None:
            return set(native.cmake)  # an include not resolved: any file may be read
        edges.setdefault(e.from_file, []).append(e.to_file)
    todo = [p for p in native.cmake if p.rsplit("/", 1)[-1] == "CMakeLists.txt"]
    seen = set(todo)
    while todo:
        for q in edges.get(todo.pop(), ()):
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return seen


def _read_commands(native: NativeIndex, owned: set[tuple[str, int]]
                   ) -> Iterator[tuple[str, CMakeCommand]]:
    """(path, command) of each command of a file CMake reads, but those in ``owned``."""
    read = read_cmake_files(native)
    for path, facts in sorted(native.cmake.items()):
        if path not in read:
            continue  # a .cmake file nothing includes any more: CMake never reads it
        for c in facts.commands:
            if (path, c.start_line) not in owned:
                yield path, c


# -- fetched repositories -----------------------------------------------------------------------
def _fetch_states(native: NativeIndex) -> dict[str, set[str]]:
    """Per fetched repository: ``declared`` (a ``FetchContent_Declare``/``ExternalProject_Add``
    remains), ``populated`` (a populate or make-available call remains), ``available``
    (``FetchContent_MakeAvailable`` remains)."""
    starts = {(p, c.start_line): c.name for p, f in native.cmake.items() for c in f.commands}
    out: dict[str, set[str]] = {}
    for f in native.project.fetches:
        names = {starts.get(r) for r in fetch_own_ranges(f)}
        state = out.setdefault(f.name, set())
        if names & set(_DECLARE):
            state.add("declared")
        if names & {"fetchcontent_populate", "fetchcontent_makeavailable"}:
            state.add("populated")
        if "fetchcontent_makeavailable" in names:
            state.add("available")
    return out


def _gone_fetches(native: NativeIndex, baseline: dict[str, Any]) -> dict[str, str]:
    """Baseline repositories the build no longer fetches: name -> what is missing."""
    states = _fetch_states(native)
    out: dict[str, str] = {}
    for f in baseline["fetches"]:
        state = states.get(f["name"], set())
        if "declared" not in state and f.get("declared", True):
            # (a repository fetched by FetchContent_Populate with arguments has no
            # declaration in the original either)
            out[f["name"]] = "declaration"
        elif f.get("populated") and "populated" not in state:
            out[f["name"]] = "populate call"
        elif f["make_available"] and "available" not in state:
            out[f["name"]] = "FetchContent_MakeAvailable"
    return out


def _primary_vars(name: str, commands: dict[str, list[CMakeCommand]]) -> set[str]:
    """The variables FetchContent itself sets for a repository (``<name>_SOURCE_DIR`` ...,
    ``FetchContent_GetProperties`` outputs)."""
    out = {f"{n}_{suffix}" for n in (name, name.lower(), name.upper())
           for suffix in ("SOURCE_DIR", "BINARY_DIR", "POPULATED")}
    for cmds in commands.values():
        for c in cmds:
            values = [a.value for a in c.args]
            if c.name == "fetchcontent_getproperties" and values[:1] == [name]:
                out.update(values[i + 1] for i, v in enumerate(values[1:-1], 1)
                           if v in ("SOURCE_DIR", "BINARY_DIR", "POPULATED"))
    return out


def _check_fetches(state: NativeState, baseline: dict[str, Any]) -> list[Break]:
    native = state.native
    project = native.project
    missing = _gone_fetches(native, baseline)
    gone = {f["name"]: f for f in baseline["fetches"] if f["name"] in missing}
    if not gone:
        return []
    out: list[Break] = []
    targets = _targets_by_name(project.targets)
    before = {t["name"]: t for t in baseline["targets"]}
    owned: set[tuple[str, int]] = set()  # lines of remaining targets' own commands
    in_tree = {t.name for t in project.targets}
    linking: dict[str, set[str]] = {}  # target -> libraries no in-tree target defines
    for name, defs in sorted(targets.items()):
        for t in defs:
            owned.add(_where(t))
            owned.update((r.file, r.start_line) for r in t.config_ranges)
        used = sorted(set(before.get(name, {}).get("fetches", [])) & set(gone))
        file, line = _where(defs[0])
        for f in used:
            out.append(Break("cmake-fetch", file, line, f"target {name} uses fetched "
                             f"repository {f}, whose {missing[f]} is gone", "fetch", f))
        external = {x for t in defs for x in t.links
                    if is_external_library(x, in_tree, state.system_libraries)}
        if external:
            linking[name] = external
    for f, entry in sorted(gone.items()):
        if entry["make_available"] and linking:
            first = min(linking)
            libs = sorted(set().union(*linking.values()))
            out.append(Break("cmake-fetch", *_where(targets[first][0]), f"fetched repository "
                             f"{f} (FetchContent_MakeAvailable, whose CMake may define "
                             f"targets) is gone, but {', '.join(sorted(linking))} link "
                             f"libraries no in-tree target defines ({', '.join(libs)})",
                             "fetch", f))
    for path, c in _read_commands(native, owned):
        for f, entry in sorted(gone.items()):
            # what FetchContent sets, anywhere; variables set from it, where they are used
            names = set(entry.get("primary", ()))
            if defined_var(c) is None:
                names |= {v for v in entry["derived"] if not v.startswith("ENV{")}
            var = next((v for a in c.args for v in _var_names(a.value) if v[1] in names),
                       None)
            if var is not None:
                out.append(Break("cmake-fetch", path, c.start_line, f"{c.name}() uses "
                                 f"{var[0]} of fetched repository {f}, whose {missing[f]} "
                                 "is gone", "fetch", f))
            elif c.name.startswith("fetchcontent_") and c.args and c.args[0].value == f \
                    and missing[f] == "declaration":
                out.append(Break("cmake-fetch", path, c.start_line, f"{c.name}({f}) names "
                                 "a repository whose FetchContent_Declare is gone",
                                 "fetch", f))
    return out


def _var_names(text: str) -> list[tuple[str, str]]:
    """(as written, name) of a bare variable name and of each ``${VAR}`` in an argument."""
    return [(text, text), *((f"${{{v}}}", v) for v in VAR_REF.findall(text))]


# -- targets and variables ----------------------------------------------------------------------
def _check_targets(state: NativeState, baseline: dict[str, Any]) -> list[Break]:
    native = state.native
    project = native.project
    targets = _targets_by_name(project.targets)
    before = {t["name"]: t for t in baseline["targets"]}
    defined_before = set(baseline["defined_variables"])
    defined_now = _defined_variables(native)
    missing = _gone_fetches(native, baseline)
    gone_fetch_vars = {v for f in baseline["fetches"] if f["name"] in missing
                       for v in f["derived"]}
    # CMake's own variables (CMAKE_BUILD_TYPE ...) come from CMake, a toolchain or -D whether
    # or not a set() of the tree remains
    unset = {v for v in defined_before - defined_now - gone_fetch_vars
             if not v.startswith("CMAKE_")}
    out: list[Break] = []
    for name, entry in before.items():
        if name not in targets and entry.get("kept"):
            out.append(Break("cmake-target", entry["file"], entry["line"], f"target {name} "
                             f"was removed, but the scan kept it as unresolved "
                             f"({entry['kept']})", "target", name))
    reported: set[tuple[str, int, str]] = set()
    for name, defs in sorted(targets.items()):
        entry = before.get(name)
        if entry is None:
            continue
        file, line = _where(defs[0])
        for other in sorted(set(entry["links"]) | set(entry["depends"])):
            if other in before and other not in targets:
                out.append(Break("cmake-target", file, line, f"target {name} links {other}, "
                                 "which no longer exists", "target", other))
        for var in entry["variables"]:
            if var in unset:
                reported.add((file, line, var))
                out.append(Break("cmake-var", file, line, f"target {name} uses ${{{var}}}, "
                                 "which nothing in the tree sets any more", "variable", var))
    # any other command reading a variable nothing sets any more (a target's own commands
    # are the target's: reported above)
    owned = {_where(t) for t in project.targets} | {
        (r.file, r.start_line) for t in project.targets for r in t.config_ranges}
    for path, c in _read_commands(native, owned):
        for a in c.args:
            for var in VAR_REF.findall(a.value):
                if var in unset and (path, c.start_line, var) not in reported:
                    reported.add((path, c.start_line, var))
                    out.append(Break("cmake-var", path, c.start_line, f"{c.name}() uses "
                                     f"${{{var}}}, which nothing in the tree sets any more",
                                     "variable", var))
    return out


def _targets_by_name(targets: tuple[CMakeTarget, ...]) -> dict[str, list[CMakeTarget]]:
    out: dict[str, list[CMakeTarget]] = {}
    for t in targets:
        out.setdefault(t.name, []).append(t)
    return out


def _where(t: CMakeTarget) -> tuple[str, int]:
    """Where a target is created, as a reader sees it: the call, for a function's target."""
    if t.call_site is not None:
        return t.call_site.file, t.call_site.start_line
    return t.file, t.start_line


def _defined_variables(native: NativeIndex) -> set[str]:
    out = {o.name for o in native.project.options}
    for facts in native.cmake.values():
        out.update(v for c in facts.commands if (v := defined_var(c)) is not None)
    declared = {name for name, state in _fetch_states(native).items() if "declared" in state}
    for f in native.project.fetches:
        if f.name in declared:
            out.update(derived_vars(f.name, native.cmake, by_name=False))
    return out


# -- functions ----------------------------------------------------------------------------------
def _signature(c: CMakeCommand) -> str:
    return f"{c.name}({' '.join(a.value for a in c.args)})"


def _functions(commands: dict[str, list[CMakeCommand]]) -> list[dict[str, Any]]:
    out = []
    for path, cmds in commands.items():
        for start, end in function_bodies(cmds):
            head = next(c for c in cmds if c.start_line == start)
            body = [c for c in cmds if start < c.start_line and c.end_line <= end
                    and not (c.start_line == end and c.name == "end" + head.name)]
            out.append({"name": head.args[0].value.lower() if head.args else "",
                        "kind": head.name, "file": path, "line": start,
                        "body": [[_signature(c), c.start_line] for c in body]})
    return out


def _check_functions(state: NativeState, baseline: dict[str, Any]) -> list[Break]:
    commands = {p: list(f.commands) for p, f in sorted(state.native.cmake.items())}
    now: dict[str, list[dict[str, Any]]] = {}
    for fn in _functions(commands):
        now.setdefault(fn["name"], []).append(fn)
    out: list[Break] = []
    for fn in baseline["functions"]:
        name = fn["name"]
        if name not in now:
            calls = [(p, c.start_line) for p, cmds in commands.items() for c in cmds
                     if c.name == name]
            if calls:
                out.append(Break("cmake-function", *calls[0], f"{name}() is called, but its "
                                 f"{fn['kind']}() definition ({fn['file']}) is gone", "line",
                                 f"{fn['file']}:{fn['line']}"))
            continue
        here = next((f for f in now[name] if f["file"] == fn["file"]), now[name][0])
        missing = Counter(sig for sig, _line in fn["body"]) - Counter(
            sig for sig, _line in here["body"])
        for sig, line in fn["body"]:
            if missing[sig] > 0:
                missing[sig] -= 1
                out.append(Break("cmake-function", here["file"], here["line"], f"{fn['kind']} "
                                 f"{name}(): body command {sig} (was {fn['file']}:{line}) is "
                                 "gone; a body serves every call", "line", f"{fn['file']}:{line}"))
    return out
