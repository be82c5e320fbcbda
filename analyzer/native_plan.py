"""Deletion-plan stage, native half: CUDA/C++ files, op registrations and CMake blocks.

Input: the graph, liveness, the native index and the CMake command lists. Output: deletions
appended to the ``Plan`` plus a ``NativeSummary`` (dead targets, translation units removed
from the build, fetched repositories no longer needed). Nothing is read from disk.

Rules (each deletion says which one applied in its ``reason``):
- a dead target: its creating command and every command configuring it (``config_ranges``,
  ``install`` included);
- a dead source file or header: deleted when something in the build knew it (a target
  compiles it, or a file includes it); files no target and no include reaches are kept and
  listed, never deleted on a guess;
- a source-list entry of a deleted file, when the entry stands alone on its line;
- ``set``/``list(APPEND)``/``file(GLOB)`` of a variable whose every ``${VAR}`` use is deleted;
- an ``if()``...``endif()`` block whose every command is deleted goes whole;
- a fetched repository no live target uses: its ``FetchContent_Declare`` and populate calls;
- a ``.cmake`` file left with nothing but inert commands: the file, and its ``include()``;
- ``m.def``/``m.impl`` statements of dead ops in a live registration file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import networkx as nx

from analyzer.analysis.liveness import Liveness
from analyzer.extract.cmake import CMakeCommand, CmakeFacts
from analyzer.native_graph import NativeIndex, fetch_node, file_node, is_tu, op_node, target_node
from analyzer.plan import Deletion, FileInfo, Kept, Plan

_VAR_REF = re.compile(r"\$\{([A-Za-z0-9_.+\-]+)\}")
_DEFINES_VAR = {"set", "list", "file"}
_INERT = {"cmake_minimum_required", "cmake_policy", "include_guard", "message", "project"}
_CONTROL = {"if", "elseif", "else", "endif"}


@dataclass
class DeadTarget:
    name: str
    file: str
    tus_in_repo: int
    tus_fetched: int
    fetches: tuple[str, ...]


@dataclass
class NativeSummary:
    dead_targets: list[DeadTarget] = field(default_factory=list)
    dead_fetches: list[str] = field(default_factory=list)
    dead_ops: list[str] = field(default_factory=list)
    tus_removed: int = 0  # in-repo TUs deleted + fetched TUs of dead targets
    kept_unknown: int = 0  # native files no target or include reaches


def plan_native(graph: nx.DiGraph, live: Liveness, native: NativeIndex,
                cmake: dict[str, CmakeFacts], files: dict[str, FileInfo],
                plan: Plan) -> NativeSummary:
    summary = NativeSummary()
    project = native.project
    is_live = live.is_live

    dead_files = _dead_native_files(graph, live, native, summary, plan)
    for path in sorted(dead_files):
        why = "compiled only by dead targets" if path in native.compiled_by and not any(
            is_live(target_node(t)) for t in native.compiled_by[path]) else (
            "its ops are all dead" if path in native.kernels else "included only by deleted files")
        plan.deletions.append(Deletion("delete_file", path, files[path].sha256,
                                       files[path].lines, why, category="native-file"))

    dead_cmds: dict[str, set[int]] = {}  # file -> start lines of dead commands
    reasons: dict[tuple[str, int], str] = {}

    def kill(file: str, start: int, reason: str) -> None:
        if start not in dead_cmds.setdefault(file, set()):
            dead_cmds[file].add(start)
            reasons[(file, start)] = reason

    for t in project.targets:
        if is_live(target_node(t.name)):
            continue
        in_repo = sum(1 for s in t.sources if s.path and is_tu(s.path))
        fetched = sum(1 for s in t.sources if s.fetch and is_tu(s.raw))
        summary.dead_targets.append(DeadTarget(t.name, t.file, in_repo, fetched, t.fetches))
        summary.tus_removed += fetched
        kill(t.file, t.start_line, f"target {t.name} is dead")
        for r in t.config_ranges:
            kill(r.file, r.start_line, f"configures dead target {t.name}")
    for f in project.fetches:
        if not is_live(fetch_node(f.name)):
            summary.dead_fetches.append(f.name)
            kill(f.file, f.start_line, f"fetched repository {f.name} is used by no live target")
            for r in f.populate_ranges:
                kill(r.file, r.start_line, f"populates unused repository {f.name}")
    summary.tus_removed += sum(1 for p in dead_files if is_tu(p))

    commands = {path: list(facts.commands) for path, facts in cmake.items()}
    _dead_variables(commands, dead_cmds, kill)
    included_by: dict[tuple[str, int], str] = {}
    dead_cmake_files = _dead_cmake_files(project, commands, dead_cmds, kill, included_by)
    _dead_variables(commands, dead_cmds, kill)
    for path in sorted(dead_cmake_files):
        plan.deletions.append(Deletion("delete_file", path, files[path].sha256, files[path].lines,
                                       "CMake file left with no live content",
                                       category="cmake-file"))
    for path, cmds in sorted(commands.items()):
        if path in dead_cmake_files:
            continue
        _emit_cmake_ranges(path, cmds, dead_cmds.get(path, set()), reasons, files[path], plan,
                           _entry_lines(project, dead_files, path, cmds), included_by)
    _dead_registrations(live, native, dead_files, files, plan, summary)
    return summary


def _dead_native_files(graph: nx.DiGraph, live: Liveness, native: NativeIndex,
                       summary: NativeSummary, plan: Plan) -> set[str]:
    """Dead files the build knew: compiled by a target, or included only by files that are
    themselves deleted (fixpoint). Everything else that is not live is kept and listed."""
    dead = {p for p in native.facts if p in native.compiled_by and not live.is_live(file_node(p))}
    includers: dict[str, list[str]] = {}
    for path in native.facts:
        node = file_node(path)
        includers[path] = [graph.nodes[u]["path"] for u in graph.predecessors(node)
                           if graph.edges[u, node]["kind"] == "includes"]
    changed = True
    while changed:
        changed = False
        for path, users in includers.items():
            if path not in dead and users and not live.is_live(file_node(path)) \
                    and all(u in dead for u in users):
                dead.add(path)
                changed = True
    for path in sorted(native.facts):
        if path not in dead and not live.is_live(file_node(path)):
            summary.kept_unknown += 1
            plan.kept.append(Kept(
                path, 0, path, "dead, but no CMake target compiles it and no deleted file "
                "alone includes it; kept (another build may use it)"))
    return dead


def _dead_variables(commands: dict[str, list[CMakeCommand]], dead: dict[str, set[int]],
                    kill) -> None:
    defs: dict[str, list[tuple[str, CMakeCommand]]] = {}
    uses: dict[str, list[tuple[str, CMakeCommand]]] = {}
    for path, cmds in commands.items():
        for c in cmds:
            var = _defined_var(c)
            if var:
                defs.setdefault(var, []).append((path, c))
            for a in c.args:
                for name in _VAR_REF.findall(a.value):
                    uses.setdefault(name, []).append((path, c))
    for path, cmds in commands.items():  # bare names: if(VAR), foreach(x IN LISTS VAR) ...
        for c in cmds:
            for a in c.args:
                if a.value in defs and _defined_var(c) != a.value:
                    uses.setdefault(a.value, []).append((path, c))
    changed = True
    while changed:
        changed = False
        for var, places in defs.items():
            if var.startswith(("CMAKE_", "ENV")):
                continue  # read by CMake itself
            refs = uses.get(var, [])
            if not refs or all(c.start_line in dead.get(p, set()) for p, c in places):
                continue
            if all(c.start_line in dead.get(p, set()) for p, c in refs
                   if _defined_var(c) != var):
                for p, c in places:
                    if c.start_line not in dead.get(p, set()):
                        kill(p, c.start_line, f"sets {var}, used only by deleted commands")
                        changed = True


def _defined_var(c: CMakeCommand) -> str | None:
    if c.name not in _DEFINES_VAR or not c.args:
        return None
    if c.name == "set":
        return c.args[0].value
    if c.name == "list" and len(c.args) > 1 and c.args[0].value.upper() == "APPEND":
        return c.args[1].value
    if c.name == "file" and len(c.args) > 1 and c.args[0].value.upper().startswith("GLOB"):
        return c.args[1].value
    return None


def _dead_cmake_files(project, commands: dict[str, list[CMakeCommand]],
                      dead: dict[str, set[int]], kill,
                      included_by: dict[tuple[str, int], str]) -> set[str]:
    """CMake files left with nothing live; ``included_by`` gets (file, line) of each
    ``include()`` of one, mapped to the deleted file."""
    included = {inc.to_file for inc in project.includes if inc.to_file}
    out: set[str] = set()
    for path, cmds in commands.items():
        if path not in included:  # top-level build files are never deleted
            continue
        d = dead.get(path, set())
        substantive = [c for c in cmds if c.name not in _INERT and c.name not in _CONTROL
                       and not (c.name == "include" and c.args
                                and "/" not in c.args[0].value and "." not in c.args[0].value)]
        if substantive and all(c.start_line in d for c in substantive):
            out.add(path)
    for inc in project.includes:
        if inc.to_file in out and inc.from_file not in out:
            kill(inc.from_file, inc.start_line, f"includes {inc.to_file}, which is deleted")
            included_by[(inc.from_file, inc.start_line)] = inc.to_file
    return out


def _entry_lines(project, dead_files: set[str], path: str,
                 cmds: list[CMakeCommand]) -> dict[int, str]:
    """Lines of ``path`` holding exactly one source entry, of a deleted file."""
    out: dict[int, str] = {}
    for t in project.targets:
        for s in t.sources:
            if s.file != path or s.path not in dead_files:
                continue
            cmd = next((c for c in cmds if c.start_line < s.line < c.end_line), None)
            if cmd and sum(1 for a in cmd.args if a.line == s.line) == 1:
                out[s.line] = f"source entry of deleted file {s.path}"
    return out


def _emit_cmake_ranges(path: str, cmds: list[CMakeCommand], dead: set[int],
                       reasons: dict[tuple[str, int], str], info: FileInfo, plan: Plan,
                       entries: dict[int, str],
                       included_by: dict[tuple[str, int], str]) -> None:
    ranges: list[tuple[int, int, str]] = []
    stack: list[tuple[CMakeCommand, list[CMakeCommand]]] = []
    for c in cmds:  # if-blocks whose every command is dead go whole
        if c.name == "if":
            stack.append((c, []))
        elif c.name == "endif" and stack:
            head, inner = stack.pop()
            body = [x for x in inner if x.name not in _CONTROL]
            if body and all(x.start_line in dead for x in body):
                for x in inner:
                    dead.discard(x.start_line)
                ranges.append((head.start_line, c.end_line,
                               "if() block with no live command left"))
            elif stack:
                stack[-1][1].extend([head, *inner, c])
        elif stack:
            stack[-1][1].append(c)
    for c in cmds:
        if c.start_line in dead:
            ranges.append((c.start_line, c.end_line, reasons.get((path, c.start_line), "dead")))
    covered = [(s, e) for s, e, _ in ranges]
    for line, why in entries.items():
        if not any(s <= line <= e for s, e in covered):
            ranges.append((line, line, why))
    for s, e, why in sorted(ranges):
        plan.deletions.append(Deletion("delete_range", path, info.sha256, e - s + 1, why, s, e,
                                       symbol=included_by.get((path, s)),
                                       category="cmake-block"))


def _dead_registrations(live: Liveness, native: NativeIndex, dead_files: set[str],
                        files: dict[str, FileInfo], plan: Plan, summary: NativeSummary) -> None:
    dead_ops: set[str] = set()
    for path in sorted(native.facts):
        for op in native.facts[path].ops:
            node = op_node(op.namespace, op.op_name)
            if live.is_live(node):
                continue
            dead_ops.add(node[3:])
            if path in dead_files:
                continue
            end = op.end_line or op.line
            plan.deletions.append(Deletion(
                "delete_range", path, files[path].sha256, end - op.line + 1,
                f"m.{op.kind} of dead op {op.namespace}::{op.op_name}", op.line, end,
                category="op-registration"))
    summary.dead_ops = sorted(dead_ops)
