"""Verify stage, native half: what pruning broke in the build, found by comparing the scan of
the pruned tree with a baseline recorded from the scan of the original.

``native_baseline(result)`` (the ORIGINAL tree's ``ScanResult``) records, as JSON-able data:
every op registration (namespace as written, whether it is a literal, op, kind, file, line),
every fetched repository (with the variables derived from it), every target (the variables,
fetched repositories and libraries it uses; why it was kept when nothing showed it unused),
the variables the tree defines and every ``function()``/``macro()`` body. The manifest writer
stores it with the verify baseline.

``check_native(result, baseline)`` (the PRUNED tree's ``ScanResult``) lists, as
``VerifyProblem``s:

- a registration that is gone while its namespace is not a literal (any ``torch.ops.<x>``
  may call it), or while live Python still calls the op (``torch.ops.<ns>.<op>``) or reads its
  namespace whole; an op gone from a namespace that is still registered is left to
  ``analyzer.verify.checks`` (it reports the call site);
- a remaining target using a fetched repository (its sources, include directories, or a
  variable derived from it) whose declaration is gone; a remaining non-target command using
  such a variable (``install(DIRECTORY ${x_SOURCE_DIR}/...)``); a remaining target linking a
  library no in-tree target defines while a ``FetchContent_MakeAvailable``d repository (which
  may define it) is gone;
- a remaining target linking or depending on an in-tree target that no longer exists, or using
  a variable the tree set and no longer sets;
- a target the original scan kept as unresolved (nothing showed it unused) that is gone;
- a ``function()``/``macro()`` whose body lost a command, or that is still called but no
  longer defined.

Missing sources and ``include()``s are ``analyzer.verify.checks``'s (``_check_cmake``). Both
functions are pure: they read only their arguments.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from analyzer.extract.cmake import CMakeCommand
from analyzer.graph.native import is_external_library, off_targets, torch_ops_reads
from analyzer.model import EXPRESSION_REWRITES
from analyzer.nodes import module_node, op_node, symbol_node
from analyzer.plan.native import (
    VAR_REF,
    defined_var,
    fetch_derived_vars,
    fetch_own_ranges,
    function_bodies,
    mention_pattern,
)
from analyzer.resolve.cmake_model import CMakeTarget

if TYPE_CHECKING:
    from analyzer.pipeline.scan import ScanResult
    from analyzer.verify.problem import VerifyProblem

BASELINE_VERSION = 1
_DECLARE = ("fetchcontent_declare", "externalproject_add")


def native_baseline(result: ScanResult) -> dict[str, Any]:
    """What the original tree's build holds, for ``check_native`` (JSON-able)."""
    native = result.native
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
    derived: dict[str, set[str]] = {}
    states = _fetch_states(result)
    for f in project.fetches:
        derived[f.name] = fetch_derived_vars(f.name, commands, by_name=False)
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
        "defined_variables": sorted(_defined_variables(result)),
        "functions": _functions(commands),
    }


def check_native(result: ScanResult, baseline: dict[str, Any] | None) -> list[VerifyProblem]:
    """Problems of the pruned tree ``result`` against the original's ``baseline`` (none
    without a baseline)."""
    from analyzer.verify.problem import VerifyProblem

    if not baseline or baseline.get("version") != BASELINE_VERSION:
        return []
    found: list[tuple[str, int, str]] = []
    found.extend(_check_ops(result, baseline))
    found.extend(_check_fetches(result, baseline))
    found.extend(_check_targets(result, baseline))
    found.extend(_check_functions(result, baseline))
    return sorted({VerifyProblem(p, line, what) for p, line, what in found})


# -- ops ---------------------------------------------------------------------------------------
def _check_ops(result: ScanResult, baseline: dict[str, Any]) -> list[tuple[str, int, str]]:
    native = result.native
    left = Counter((op.namespace, op.op_name, op.kind, path)
                   for path, facts in native.facts.items() for op in facts.ops)
    calls, whole, everything = _live_op_reads(result)
    out = []
    for reg in baseline["ops"]:
        key = (reg["namespace"], reg["op"], reg["kind"], reg["file"])
        if left[key] > 0:
            left[key] -= 1
            continue
        ns, op = reg["namespace"], reg["op"]
        spelled = f'm.{reg["kind"]}("{op}") in namespace {ns}'
        if not reg["resolved"]:
            out.append((reg["file"], reg["line"], f"{spelled} was removed, but the namespace "
                        f"is not a literal ({reg['reason']}): Python may call it, so its "
                        "registrations are never deleted"))
            continue
        base = op.split(".")[0]
        reader = calls.get((ns, base)) or whole.get(ns) or everything
        if reader is None:
            continue
        if (ns, base) in calls and ns in native.namespaces \
                and op_node(ns, op) not in result.graph:
            continue  # analyzer.verify.checks reports the call site: op registered nowhere in ns
        how = (f"calls torch.ops.{ns}.{base}" if (ns, base) in calls
               else f"reads torch.ops.{ns} whole" if ns in whole else "reads torch.ops whole")
        out.append((reg["file"], reg["line"], f"{spelled} was removed, but live Python still "
                    f"{how} ({reader})"))
    return out


def _live_op_reads(result: ScanResult) -> tuple[dict[tuple[str, str], str], dict[str, str],
                                                   str | None]:
    """Live ``torch.ops`` reads of the tree: (ns, op) -> first ``path:line``; ns read whole ->
    ``path:line``; ``torch.ops`` read whole -> ``path:line`` or None."""
    folded: dict[str, list[tuple[int, int]]] = {}
    for d in result.plan.deletions:  # branches the profile folds away never run
        if d.kind == "fold_branch" and d.rewrite not in EXPRESSION_REWRITES \
                and d.start_line is not None:
            folded.setdefault(d.path, []).append((d.start_line, d.end_line or d.start_line))
    calls: dict[tuple[str, str], str] = {}
    whole: dict[str, str] = {}
    everything: str | None = None
    live = result.liveness
    for name in sorted(result.index.modules):
        if not live.is_live(module_node(name)):
            continue
        mod = result.index.modules[name]
        for ns, op, scope, line in torch_ops_reads(mod):
            if any(s <= line <= e for s, e in folded.get(mod.path, [])):
                continue
            node = symbol_node(name, scope) if scope else None
            if node is not None and node in result.graph and not live.is_live(node):
                continue
            where = f"{mod.path}:{line}"
            if ns is None:
                everything = everything or where
            elif op is None:
                whole.setdefault(ns, where)
            else:
                calls.setdefault((ns, op), where)
    return calls, whole, everything


# -- fetched repositories ----------------------------------------------------------------------
def _fetch_states(result: ScanResult) -> dict[str, set[str]]:
    """Per fetched repository: ``declared`` (a ``FetchContent_Declare``/``ExternalProject_Add``
    remains), ``populated`` (a populate or make-available call remains), ``available``
    (``FetchContent_MakeAvailable`` remains)."""
    starts = {(p, c.start_line): c.name for p, f in result.native.cmake.items()
              for c in f.commands}
    out: dict[str, set[str]] = {}
    for f in result.native.project.fetches:
        names = {starts.get(r) for r in fetch_own_ranges(f)}
        state = out.setdefault(f.name, set())
        if names & set(_DECLARE):
            state.add("declared")
        if names & {"fetchcontent_populate", "fetchcontent_makeavailable"}:
            state.add("populated")
        if "fetchcontent_makeavailable" in names:
            state.add("available")
    return out


def _gone_fetches(result: ScanResult, baseline: dict[str, Any]) -> dict[str, str]:
    """Baseline repositories the pruned tree no longer fetches: name -> what is missing."""
    states = _fetch_states(result)
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


def _declared(result: ScanResult) -> set[str]:
    return {name for name, state in _fetch_states(result).items() if "declared" in state}


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


def _check_fetches(result: ScanResult, baseline: dict[str, Any]) -> list[tuple[str, int, str]]:
    project = result.native.project
    missing = _gone_fetches(result, baseline)
    gone = {f["name"]: f for f in baseline["fetches"] if f["name"] in missing}
    if not gone:
        return []
    out = []
    targets = _targets_by_name(project.targets)
    before = {t["name"]: t for t in baseline["targets"]}
    owned: set[tuple[str, int]] = set()  # lines of remaining targets' own commands
    in_tree = {t.name for t in project.targets}
    profile = result.profile.profile
    system_libraries = profile.system_libraries if profile is not None else ()
    linking: dict[str, set[str]] = {}  # target -> libraries no in-tree target defines
    for name, defs in sorted(targets.items()):
        for t in defs:
            owned.add(_where(t))
            owned.update((r.file, r.start_line) for r in t.config_ranges)
        used = sorted(set(before.get(name, {}).get("fetches", [])) & set(gone))
        file, line = _where(defs[0])
        for f in used:
            out.append((file, line, f"target {name} uses fetched repository {f}, whose "
                        f"{missing[f]} is gone"))
        external = {x for t in defs for x in t.links
                    if is_external_library(x, in_tree, system_libraries)}
        if external:
            linking[name] = external
    for f, entry in sorted(gone.items()):
        if entry["make_available"] and linking:
            first = min(linking)
            libs = sorted(set().union(*linking.values()))
            out.append((*_where(targets[first][0]), f"fetched repository {f} "
                        "(FetchContent_MakeAvailable, whose CMake may define targets) is gone, "
                        f"but {', '.join(sorted(linking))} link libraries no in-tree target "
                        f"defines ({', '.join(libs)})"))
    for path, facts in sorted(result.native.cmake.items()):
        for c in facts.commands:
            if (path, c.start_line) in owned:
                continue
            for f, entry in sorted(gone.items()):
                # what FetchContent sets, anywhere; variables set from it, where they are used
                names = set(entry.get("primary", ()))
                if defined_var(c) is None:
                    names |= {v for v in entry["derived"] if not v.startswith("ENV{")}
                var = next((v for a in c.args for v in _var_names(a.value) if v[1] in names),
                           None)
                if var is not None:
                    out.append((path, c.start_line, f"{c.name}() uses {var[0]} of fetched "
                                f"repository {f}, whose {missing[f]} is gone"))
                elif c.name.startswith("fetchcontent_") and c.args and c.args[0].value == f \
                        and missing[f] == "declaration":
                    out.append((path, c.start_line, f"{c.name}({f}) names a repository "
                                "whose FetchContent_Declare is gone"))
    return out


def _var_names(text: str) -> list[tuple[str, str]]:
    """(as written, name) of a bare variable name and of each ``${VAR}`` in an argument."""
    return [(text, text), *((f"${{{v}}}", v) for v in VAR_REF.findall(text))]


# -- targets -----------------------------------------------------------------------------------
def _check_targets(result: ScanResult, baseline: dict[str, Any]) -> list[tuple[str, int, str]]:
    project = result.native.project
    targets = _targets_by_name(project.targets)
    before = {t["name"]: t for t in baseline["targets"]}
    defined_before = set(baseline["defined_variables"])
    defined_now = _defined_variables(result)
    missing = _gone_fetches(result, baseline)
    gone_fetch_vars = {v for f in baseline["fetches"] if f["name"] in missing
                       for v in f["derived"]}
    out = []
    for name, entry in before.items():
        if name not in targets and entry.get("kept"):
            out.append((entry["file"], entry["line"], f"target {name} was removed, but the "
                        f"scan kept it as unresolved ({entry['kept']})"))
    for name, defs in sorted(targets.items()):
        entry = before.get(name)
        if entry is None:
            continue
        file, line = _where(defs[0])
        for other in sorted(set(entry["links"]) | set(entry["depends"])):
            if other in before and other not in targets:
                out.append((file, line, f"target {name} links {other}, which no longer "
                            "exists"))
        for var in entry["variables"]:
            if var in defined_before and var not in defined_now and var not in gone_fetch_vars:
                out.append((file, line, f"target {name} uses ${{{var}}}, which nothing in the "
                            "tree sets any more"))
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


def _defined_variables(result: ScanResult) -> set[str]:
    out = {o.name for o in result.native.project.options}
    for facts in result.native.cmake.values():
        out.update(v for c in facts.commands if (v := defined_var(c)) is not None)
    commands = {p: list(f.commands) for p, f in result.native.cmake.items()}
    declared = _declared(result)
    for f in result.native.project.fetches:
        if f.name in declared:
            out.update(fetch_derived_vars(f.name, commands, by_name=False))
    return out


# -- functions ---------------------------------------------------------------------------------
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


def _check_functions(result: ScanResult, baseline: dict[str, Any]
                     ) -> list[tuple[str, int, str]]:
    commands = {p: list(f.commands) for p, f in sorted(result.native.cmake.items())}
    now: dict[str, list[dict[str, Any]]] = {}
    for fn in _functions(commands):
        now.setdefault(fn["name"], []).append(fn)
    out = []
    for fn in baseline["functions"]:
        name = fn["name"]
        if name not in now:
            calls = [(p, c.start_line) for p, cmds in commands.items() for c in cmds
                     if c.name == name]
            if calls:
                out.append((*calls[0], f"{name}() is called, but its {fn['kind']}() "
                            f"definition ({fn['file']}) is gone"))
            continue
        here = next((f for f in now[name] if f["file"] == fn["file"]), now[name][0])
        missing = Counter(sig for sig, _line in fn["body"]) - Counter(
            sig for sig, _line in here["body"])
        for sig, line in fn["body"]:
            if missing[sig] > 0:
                missing[sig] -= 1
                out.append((here["file"], here["line"], f"{fn['kind']} {name}(): body command "
                            f"{sig} (was {fn['file']}:{line}) is gone; a body serves every "
                            "call"))
    return out
