"""Deletion-plan stage, native half: CUDA/C++ files, op registrations and CMake blocks.

Input: the graph, liveness, the native index and the CMake command lists. Output: deletions
appended to the ``Plan`` plus a ``NativeSummary`` (dead targets, translation units removed
from the build, fetched repositories no longer needed). Nothing is read from disk.

First the nodes the graph stage could not resolve (``NativeIndex.kept_roots``: ops under a
namespace that is not a literal, targets nothing is shown to load) join the live set: what
cannot be resolved is kept.

Rules (each deletion says which one applied in its ``reason``):
- never inside a ``function()``/``macro()`` body: a body serves every call of it;
- a dead target: its creating command and every command configuring it (``config_ranges``,
  ``install`` included); a target created inside a function body: the call creating it, when
  the evaluator found that call removable (``call_site``) and every target it creates is dead;
- a dead source file or header: deleted when something in the build knew it (a target
  compiles it, or a file includes it) and every source entry naming it goes too (its own line,
  a deleted command, or a glob); files no target and no include reaches are kept and listed,
  never deleted on a guess;
- a source-list entry of a deleted file, when the entry stands alone on its line;
- ``set``/``list(APPEND)``/``file(GLOB)`` of a variable whose every ``${VAR}`` use is deleted;
- an ``if()``...``endif()`` block whose every command is deleted goes whole;
- an ``if()`` statement none of whose commands runs with the forced CMake options (a dropped
  feature's ``cmake_options``; ``CMakeProject.off_blocks``) goes whole, every command in it
  with it, unless something that stays needs it: it is in (or holds) a ``function()``/
  ``macro()`` body, creates a target that is live (``--keep-target``, linked by a live
  target), declares or populates a fetched repository a live target uses, or sets a variable
  (or option) that a command staying outside it reads and nothing staying sets; then it stays
  and is listed as kept, with the reason (its dead targets still go by the rules above);
- a fetched repository no live target uses, and whose use cannot otherwise be shown: it goes
  only when every command mentioning its name or a variable derived from it
  (``<name>_SOURCE_DIR``/``_BINARY_DIR``/``_POPULATED``, variables set from those,
  transitively) is deleted with it; a ``FetchContent_MakeAvailable``d one also stays while a
  live target links a library no in-tree target defines (a ``links_fetched`` graph edge);
- a ``.cmake`` file left with nothing but inert commands: the file, and its ``include()``;
- ``m.def``/``m.impl`` statements of dead ops in a live registration file; never those of a
  namespace that is not a literal.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field

from analyzer.analysis.liveness import Liveness, followed_view
from analyzer.extract.cmake import CMakeCommand, CmakeFacts
from analyzer.graph.native import NativeIndex, is_tu
from analyzer.model import Deletion, FileInfo, Kept, Plan
from analyzer.nodes import SUPER_ROOT, Graph, fetch_node, file_node, op_node, target_node
from analyzer.plan.cmake_vars import (
    VAR_REF,
    defined_var,
    fetch_own_ranges,
    mentions_of,
)
from analyzer.resolve.cmake import if_statements
from analyzer.resolve.cmake_model import CMakeProject, LineRange, OffBlock

_INERT = {"cmake_minimum_required", "cmake_policy", "include_guard", "message", "project"}
_CONTROL = {"if", "elseif", "else", "endif"}
_GLOB = re.compile(r"[*?\[]")

Kill = Callable[[str, int, str], None]


@dataclass
class DeadTarget:
    name: str
    file: str
    tus_in_repo: int
    tus_fetched: int
    fetches: tuple[str, ...]


def leaving_tus(share: Iterable[Deletion], dead_targets: Iterable[DeadTarget],
                targets: Collection[str], compiled_by: Mapping[str, list[str]]
                ) -> list[tuple[int, list[str]]]:
    """The translation units that leave the build with a feature's ``share``, as (how many,
    the targets compiling them): each TU file the share deletes, and the fetched TUs of each
    dead target among the feature's ``targets``. A feature's TU figure is their sum."""
    out = [(1, compiled_by.get(d.path, [])) for d in share
           if d.kind == "delete_file" and d.category == "native-file" and is_tu(d.path)]
    out += [(t.tus_fetched, [t.name]) for t in dead_targets
            if t.name in targets and t.tus_fetched]
    return out


@dataclass
class NativeSummary:
    dead_targets: list[DeadTarget] = field(default_factory=list)
    dead_fetches: list[str] = field(default_factory=list)
    dead_ops: list[str] = field(default_factory=list)
    tus_removed: int = 0  # in-repo TUs deleted + fetched TUs of dead targets
    kept_unknown: int = 0  # native files no target or include reaches
    unresolved_ops: int = 0  # registrations under a namespace that is not a literal (kept)
    kept_targets: list[str] = field(default_factory=list)  # targets nothing is shown to load
    kept_fetches: list[str] = field(default_factory=list)  # unused by targets, still mentioned


@dataclass
class _Dead:
    """CMake commands planned for deletion: file -> start lines, with a reason each."""

    cmds: dict[str, set[int]] = field(default_factory=dict)
    reasons: dict[tuple[str, int], str] = field(default_factory=dict)
    guarded: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # function bodies
    kept: frozenset[tuple[str, int]] = frozenset()  # commands the soundness check keeps
    # file -> its if() statements (:func:`if_statements` of its commands, which a plan never
    # changes: shared by the copies)
    ifs: dict[str, list[tuple[CMakeCommand, CMakeCommand, list[CMakeCommand]]]] = \
        field(default_factory=dict)

    def kill(self, file: str, start: int, reason: str) -> None:
        if in_ranges(self.guarded.get(file, ()), start):
            return  # a function()/macro() body serves every call: never edited
        if (file, start) in self.kept:
            return
        if start not in self.cmds.setdefault(file, set()):
            self.cmds[file].add(start)
            self.reasons[(file, start)] = reason

    def has(self, file: str, start: int) -> bool:
        return start in self.cmds.get(file, ())

    def copy(self) -> _Dead:
        return _Dead({f: set(s) for f, s in self.cmds.items()}, dict(self.reasons),
                     self.guarded, self.kept, self.ifs)

    def if_statements(self, file: str, cmds: list[CMakeCommand]
                      ) -> list[tuple[CMakeCommand, CMakeCommand, list[CMakeCommand]]]:
        """:func:`if_statements` of ``file``'s commands ``cmds``, found once."""
        found = self.ifs.get(file)
        if found is None:
            found = self.ifs[file] = if_statements(cmds)
        return found


def in_ranges(ranges: Iterable[tuple[int, int]], line: int) -> bool:
    return any(s <= line <= e for s, e in ranges)


def function_bodies(cmds: list[CMakeCommand] | tuple[CMakeCommand, ...]) -> list[tuple[int, int]]:
    """Line ranges of every ``function()``/``macro()`` definition, outermost only."""
    out: list[tuple[int, int]] = []
    depth, start, opener = 0, 0, ""
    for c in cmds:
        if depth == 0 and c.name in ("function", "macro"):
            depth, start, opener = 1, c.start_line, c.name
        elif depth and c.name == opener:
            depth += 1
        elif depth and c.name == "end" + opener:
            depth -= 1
            if depth == 0:
                out.append((start, c.end_line))
    if depth:  # unterminated: the rest of the file is the body
        out.append((start, cmds[-1].end_line if cmds else start))
    return out


def plan_native(graph: Graph, live: Liveness, native: NativeIndex,
                cmake: dict[str, CmakeFacts], files: dict[str, FileInfo],
                plan: Plan, keep: frozenset[tuple[str, int]] = frozenset()) -> NativeSummary:
    """The native half of ``plan``; ``keep``: CMake commands (path, start line) the soundness
    check found still needed, and whole files (path, 0): never deleted."""
    summary = NativeSummary()
    project = native.project
    keep_live(graph, live, native.kept_roots)
    is_live = live.is_live
    summary.kept_targets = sorted(native.kept_targets)

    commands = {path: list(facts.commands) for path, facts in cmake.items()}
    dead = _Dead(guarded={path: function_bodies(cmds) for path, cmds in commands.items()},
                 kept=keep)

    for t in project.targets:
        if is_live(target_node(t.name)):
            continue
        if t.created_in is not None:
            if t.call_site is None:
                continue  # cannot happen (kept live), but never edit a function body
            dead.kill(t.call_site.file, t.call_site.start_line,
                      f"creates only dead targets ({t.name})")
        else:
            dead.kill(t.file, t.start_line, f"target {t.name} is dead")
        for r in t.config_ranges:
            dead.kill(r.file, r.start_line, f"configures dead target {t.name}")
    seen: set[str] = set()
    for t in project.targets:
        if is_live(target_node(t.name)) or t.name in seen:
            continue
        seen.add(t.name)
        in_repo = sum(1 for s in t.sources if s.path and is_tu(s.path))
        fetched = sum(1 for s in t.sources if s.fetch and is_tu(s.raw))
        where = t.call_site.file if t.call_site is not None else t.file
        summary.dead_targets.append(DeadTarget(t.name, where, in_repo, fetched, t.fetches))
        summary.tus_removed += fetched

    variables = _variable_places(commands)
    folded = _fold_off_blocks(project, commands, variables, dead, is_live, plan)
    _dead_variables(variables, dead.cmds, dead.kill)
    _dead_fetches(project, commands, variables, cmake, dead, is_live, summary, plan)
    included_by: dict[tuple[str, int], str] = {}
    dead_cmake_files = {p for p in _dead_cmake_files(project, commands, dead.cmds, dead.kill,
                                                     included_by) if (p, 0) not in keep}
    _dead_variables(variables, dead.cmds, dead.kill)

    dead_files = _dead_native_files(graph, live, native, set())
    stuck = _unremovable_sources(project, commands, dead, dead_files, dead_cmake_files)
    if stuck:
        dead_files = _dead_native_files(graph, live, native, set(stuck))
    for path in sorted(native.facts):
        if path in stuck:
            plan.kept.append(Kept(path, 0, path, stuck[path]))
        elif path not in dead_files and not live.is_live(file_node(path)):
            summary.kept_unknown += 1
            plan.kept.append(Kept(
                path, 0, path, "dead, but no CMake target compiles it and no deleted file "
                "alone includes it; kept (another build may use it)"))
    for path in sorted(dead_files):
        why = "compiled only by dead targets" if path in native.compiled_by and not any(
            is_live(target_node(t)) for t in native.compiled_by[path]) else (
            "listed only where the forced CMake options turn the build off"
            if path in native.off_sources else
            "its ops are all dead" if path in native.kernels else "included only by deleted files")
        plan.deletions.append(Deletion("delete_file", path, files[path].sha256,
                                       files[path].lines, why, category="native-file"))
    summary.tus_removed += sum(1 for p in dead_files if is_tu(p))

    for path in sorted(dead_cmake_files):
        plan.deletions.append(Deletion("delete_file", path, files[path].sha256, files[path].lines,
                                       "CMake file left with no live content",
                                       category="cmake-file"))
    for path, cmds in sorted(commands.items()):
        if path in dead_cmake_files:
            continue
        entries = _entry_lines(project, dead_files, path, cmds, dead.guarded.get(path, []))
        _emit_cmake_ranges(path, cmds, dead.cmds.get(path, set()), dead.reasons, files[path],
                           plan, entries, included_by, folded)
    _dead_registrations(graph, live, native, dead_files, files, plan, summary)
    return summary


def keep_live(graph: Graph, live: Liveness, roots: list[str]) -> None:
    """Add ``roots`` and everything they reach to ``live`` (one BFS over the followed edges;
    each new root's chain starts at itself). A no-op for roots already live."""
    view = followed_view(graph)
    queue: deque[str] = deque()
    for r in dict.fromkeys(roots):
        if r in graph and r not in live.live:
            live.live.add(r)
            live.parents[r] = SUPER_ROOT
            live.roots.append(r)
            queue.append(r)
    while queue:
        u = queue.popleft()
        for v in view.successors(u):
            if v not in live.live:
                live.live.add(v)
                live.parents[v] = u
                queue.append(v)


def _dead_native_files(graph: Graph, live: Liveness, native: NativeIndex,
                       keep: set[str]) -> set[str]:
    """Dead files the build knew: compiled by a target, or included only by files that are
    themselves deleted (fixpoint), ``keep`` excepted. Everything else that is not live is
    kept (and listed by the caller)."""
    dead = {p for p in native.facts if (p in native.compiled_by or p in native.off_sources)
            and not live.is_live(file_node(p)) and p not in keep}
    includers: dict[str, list[str]] = {}
    for path in native.facts:
        node = file_node(path)
        includers[path] = [graph.nodes[u]["path"] for u in graph.predecessors(node)
                           if graph.edges[u, node]["kind"] == "includes"]
    changed = True
    while changed:
        changed = False
        for path, users in includers.items():
            if path not in dead and path not in keep and users \
                    and not live.is_live(file_node(path)) and all(u in dead for u in users):
                dead.add(path)
                changed = True
    return dead


def _unremovable_sources(project: CMakeProject, commands: dict[str, list[CMakeCommand]],
                         dead: _Dead, dead_files: set[str],
                         dead_cmake_files: set[str]) -> dict[str, str]:
    """Dead sources some target lists in a way the plan cannot remove (an entry sharing its
    line, or written in a function body): deleting the file would break the build."""
    ends = {(p, c.start_line): c.end_line for p, cmds in commands.items() for c in cmds}
    killed = {p: [(s, ends.get((p, s), s)) for s in starts] for p, starts in dead.cmds.items()}
    entries = {p: _entry_lines(project, dead_files, p, cmds, dead.guarded.get(p, []))
               for p, cmds in commands.items()}
    out: dict[str, str] = {}
    for t in project.targets:
        for s in t.sources:
            if s.path not in dead_files or s.path in out or _GLOB.search(s.raw) \
                    or s.file in dead_cmake_files:
                continue
            if s.line in entries.get(s.file, {}) or in_ranges(killed.get(s.file, []), s.line):
                continue
            out[s.path] = (f"dead, but {s.file}:{s.line} lists it ({s.raw}) where the entry "
                           "cannot be removed alone; kept so the build still finds it")
    return out


@dataclass(frozen=True)
class _VarPlaces:
    """Where each CMake variable is set (``defs``) and read (``uses``), by (path, command):
    a function of the CMake files alone, computed once per native plan."""

    defs: dict[str, list[tuple[str, CMakeCommand]]]
    uses: dict[str, list[tuple[str, CMakeCommand]]]


def _variable_places(commands: dict[str, list[CMakeCommand]]) -> _VarPlaces:
    defs: dict[str, list[tuple[str, CMakeCommand]]] = {}
    uses: dict[str, list[tuple[str, CMakeCommand]]] = {}
    for path, cmds in commands.items():
        for c in cmds:
            var = defined_var(c)
            if var:
                defs.setdefault(var, []).append((path, c))
            for a in c.args:
                for name in VAR_REF.findall(a.value):
                    uses.setdefault(name, []).append((path, c))
    for path, cmds in commands.items():  # bare names: if(VAR), foreach(x IN LISTS VAR) ...
        for c in cmds:
            for a in c.args:
                if a.value in defs and defined_var(c) != a.value:
                    uses.setdefault(a.value, []).append((path, c))
    return _VarPlaces(defs, uses)


def _dead_variables(variables: _VarPlaces, dead: dict[str, set[int]], kill: Kill) -> None:
    """Kill each variable's setters once every command reading it is dead (a fixpoint)."""
    defs, uses = variables.defs, variables.uses
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
                   if defined_var(c) != var):
                for p, c in places:
                    if c.start_line not in dead.get(p, set()):
                        kill(p, c.start_line, f"sets {var}, used only by deleted commands")
                        changed = c.start_line in dead.get(p, set()) or changed


def _dead_fetches(project: CMakeProject, commands: dict[str, list[CMakeCommand]],
                  variables: _VarPlaces, cmake: Mapping[str, CmakeFacts], dead: _Dead,
                  is_live: Callable[[str], bool], summary: NativeSummary, plan: Plan) -> None:
    """Fetches no live target uses go when deleting them leaves no mention (fixpoint: one
    fetch going can take a variable, and so the last mention of another, with it)."""
    mentions = {f.name: mentions_of(f, cmake) for f in project.fetches}
    pending = [f for f in project.fetches if not is_live(fetch_node(f.name))]
    blocker: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for f in list(pending):
            trial = dead.copy()
            trial.kill(f.file, f.start_line,
                       f"fetched repository {f.name} is used by no live target")
            for r in f.declare_ranges:
                trial.kill(r.file, r.start_line, f"declares unused repository {f.name}")
            for r in f.populate_ranges:
                trial.kill(r.file, r.start_line, f"populates unused repository {f.name}")
            _dead_variables(variables, trial.cmds, trial.kill)
            own_dead = all(trial.has(p, s) for p, s in fetch_own_ranges(f))
            left = next(((p, c) for p, c in mentions[f.name]
                         if not _command_goes(p, c, commands[p], trial)), None)
            if own_dead and left is None:
                dead.cmds, dead.reasons = trial.cmds, trial.reasons
                pending.remove(f)
                summary.dead_fetches.append(f.name)
                changed = True
            elif not own_dead:
                blocker[f.name] = "its declaration is inside a function() body"
            elif left is not None:
                blocker[f.name] = (f"{left[0]}:{left[1].start_line} ({left[1].name}) mentions "
                                   "it and stays")
    for f in pending:
        summary.kept_fetches.append(f.name)
        plan.kept.append(Kept(f.file, f.start_line, f"fetched repository {f.name}",
                              f"no live target uses it, but {blocker.get(f.name, 'it')}: its "
                              "use cannot be ruled out"))


def _command_goes(path: str, c: CMakeCommand, cmds: list[CMakeCommand], dead: _Dead) -> bool:
    """The command is deleted: itself, or (a control command) its whole if() block."""
    if c.name not in _CONTROL:
        return dead.has(path, c.start_line)
    for head, end, inner in dead.if_statements(path, cmds):
        if head.start_line <= c.start_line <= end.start_line:
            body = [x for x in inner if x.name not in _CONTROL]
            if body and all(dead.has(path, x.start_line) for x in body) \
                    and not in_ranges(dead.guarded.get(path, ()), head.start_line):
                return True
    return False


# -- if() statements the forced CMake options turn off --------------------------------------
def _fold_off_blocks(project: CMakeProject, commands: dict[str, list[CMakeCommand]],
                     variables: _VarPlaces, dead: _Dead, is_live: Callable[[str], bool],
                     plan: Plan) -> dict[tuple[str, int], str]:
    """Kill every command of each off block nothing staying needs (outermost first; a fixpoint
    with the variables only deleted commands use, since one block going can free another);
    the rest are listed as kept. Returns (file, if() line) -> reason of the blocks that go."""
    blocks = [b for b in project.off_blocks if b.file in commands]
    taken: dict[tuple[str, int], str] = {}
    refused: dict[OffBlock, str] = {}
    changed = True
    while changed:
        changed = False
        for b in blocks:
            key = (b.file, b.start_line)
            if key in taken or _covered(b, taken, blocks):
                continue
            why = _block_needed(b, project, commands, dead, is_live)
            if why is not None:
                refused[b] = why
                continue
            refused.pop(b, None)
            taken[key] = f"{b.reason}: none of the block runs"
            for c in commands[b.file]:
                if b.start_line <= c.start_line <= b.end_line:
                    dead.kill(b.file, c.start_line, taken[key])
            changed = True
        if changed:
            _dead_variables(variables, dead.cmds, dead.kill)
    for b, why in refused.items():
        if (b.file, b.start_line) in taken or _covered(b, taken, blocks) or any(
                o is not b and o.file == b.file and o.start_line < b.start_line <= o.end_line
                for o in refused):
            continue  # gone with an enclosing block, or listed with the one around it
        plan.kept.append(Kept(b.file, b.start_line, f"if() block {b.file}:{b.start_line}",
                              f"{b.reason}, so none of it runs, but {why}: kept"))
    return taken


def _covered(b: OffBlock, taken: dict[tuple[str, int], str], blocks: list[OffBlock]) -> bool:
    """``b`` lies inside a block that goes."""
    return any((o.file, o.start_line) in taken and o.file == b.file
               and o.start_line < b.start_line and b.end_line <= o.end_line for o in blocks)


def _block_needed(b: OffBlock, project: CMakeProject, commands: dict[str, list[CMakeCommand]],
                  dead: _Dead, is_live: Callable[[str], bool]) -> str | None:
    """Why off block ``b`` must stay (None: nothing staying needs it)."""
    def inside(file: str, line: int) -> bool:
        return file == b.file and b.start_line <= line <= b.end_line

    guarded = dead.guarded.get(b.file, [])
    if any(s <= b.end_line and b.start_line <= e for s, e in guarded):
        return "it is in or holds a function()/macro() body, which is never edited"
    cmds = commands[b.file]
    names = {c.name for c in cmds if inside(b.file, c.start_line)}
    for t in project.targets:
        if not is_live(target_node(t.name)):
            continue
        site = t.call_site or LineRange(t.file, t.start_line, t.end_line)
        if inside(site.file, site.start_line) or (t.call_site is None
                                                  and t.created_in in names):
            return f"it creates target {t.name}, which stays live"
    for f in project.fetches:
        if is_live(fetch_node(f.name)) and any(inside(p, s) for p, s in fetch_own_ranges(f)):
            return f"it declares fetched repository {f.name}, which a live target uses"
    sets = {v for c in cmds if inside(b.file, c.start_line)
            and (v := defined_var(c) or _option_name(c))}
    if not sets:
        return None
    outside_defs: set[str] = set()
    readers: list[tuple[str, CMakeCommand, str]] = []
    for path, cs in commands.items():
        for c in cs:
            if inside(path, c.start_line) or _command_goes(path, c, cs, dead):
                continue
            var = defined_var(c) or _option_name(c)
            if var in sets:
                outside_defs.add(var)
            for a in c.args:
                for name in {*VAR_REF.findall(a.value), a.value} & sets:
                    if name != var:
                        readers.append((path, c, name))
    for path, c, name in readers:
        if name not in outside_defs:
            return (f"it sets {name}, which {path}:{c.start_line} ({c.name}) reads and "
                    "nothing that stays sets")
    return None


def _option_name(c: CMakeCommand) -> str | None:
    if c.name in ("option", "cmake_dependent_option") and c.args:
        return c.args[0].value
    return None


# -- CMake files and ranges --------------------------------------------------------------------
def _dead_cmake_files(project: CMakeProject, commands: dict[str, list[CMakeCommand]],
                      dead: dict[str, set[int]], kill: Kill,
                      included_by: dict[tuple[str, int], str]) -> set[str]:
    """CMake files left with nothing live, or no longer read; ``included_by`` gets (file,
    line) of each ``include()`` of one, mapped to the deleted file."""
    included = {inc.to_file for inc in project.includes if inc.to_file}
    out: set[str] = set()
    resolved = all(inc.to_file for inc in project.includes)

    def unread(path: str) -> bool:
        """Every include of it goes (it sits in an if() the forced options turn off), and
        every include of the build is resolved: the build no longer reads the file."""
        return resolved and all(inc.start_line in dead.get(inc.from_file, set())
                                for inc in project.includes if inc.to_file == path)

    for path, cmds in commands.items():
        if path not in included:  # top-level build files are never deleted
            continue
        d = dead.get(path, set())
        substantive = [c for c in cmds if c.name not in _INERT and c.name not in _CONTROL
                       and not (c.name == "include" and c.args
                                and "/" not in c.args[0].value and "." not in c.args[0].value)]
        if (substantive and all(c.start_line in d for c in substantive)) or unread(path):
            out.add(path)
    for inc in project.includes:
        if inc.to_file in out and inc.from_file not in out:
            kill(inc.from_file, inc.start_line, f"includes {inc.to_file}, which is deleted")
            included_by[(inc.from_file, inc.start_line)] = inc.to_file
    return out


def _entry_lines(project: CMakeProject, dead_files: set[str], path: str, cmds: list[CMakeCommand],
                 guarded: list[tuple[int, int]]) -> dict[int, str]:
    """Lines of ``path`` holding exactly one source entry, of a deleted file (never inside a
    function body)."""
    out: dict[int, str] = {}
    for t in project.targets:
        for s in t.sources:
            if s.file != path or s.path not in dead_files or in_ranges(guarded, s.line):
                continue
            cmd = next((c for c in cmds if c.start_line < s.line < c.end_line), None)
            if cmd and sum(1 for a in cmd.args if a.line == s.line) == 1:
                out[s.line] = f"source entry of deleted file {s.path}"
    return out


def _emit_cmake_ranges(path: str, cmds: list[CMakeCommand], dead: set[int],
                       reasons: dict[tuple[str, int], str], info: FileInfo, plan: Plan,
                       entries: dict[int, str],
                       included_by: dict[tuple[str, int], str],
                       folded: dict[tuple[str, int], str]) -> None:
    ranges: list[tuple[int, int, str]] = []
    for head, end, inner in if_statements(cmds):  # blocks whose every command is dead go whole
        body = [x for x in inner if x.name not in _CONTROL]
        if body and all(x.start_line in dead for x in body):
            ranges.append((head.start_line, end.end_line,
                           folded.get((path, head.start_line),
                                      "if() block with no live command left")))
    blocks = [(s, e) for s, e, _ in ranges]
    outer = [r for r in ranges  # an enclosing block that goes whole covers the inner ones
             if not any(s <= r[0] and r[1] <= e and (s, e) != (r[0], r[1]) for s, e in blocks)]
    ranges = list(outer)
    covered = [(s, e) for s, e, _ in ranges]
    for c in cmds:
        if c.start_line in dead and not in_ranges(covered, c.start_line):
            ranges.append((c.start_line, c.end_line, reasons.get((path, c.start_line), "dead")))
    covered = [(s, e) for s, e, _ in ranges]
    for line, why in entries.items():
        if not in_ranges(covered, line):
            ranges.append((line, line, why))
    for s, e, why in sorted(ranges):
        plan.deletions.append(Deletion("delete_range", path, info.sha256, e - s + 1, why, s, e,
                                       symbol=included_by.get((path, s)),
                                       category="cmake-block"))


def _dead_registrations(graph: Graph, live: Liveness, native: NativeIndex,
                        dead_files: set[str], files: dict[str, FileInfo], plan: Plan,
                        summary: NativeSummary) -> None:
    dead_ops: set[str] = set()
    for path in sorted(native.facts):
        for op in native.facts[path].ops:
            node = op_node(op.namespace, op.op_name)
            if op.namespace in native.unresolved_namespaces:
                summary.unresolved_ops += 1
                continue  # any torch.ops.<x> may name it: never deleted
            if live.is_live(node) or not graph.nodes[node].get("resolved", True):
                continue
            dead_ops.add(node[3:])
            if path in dead_files:
                continue
            end = op.end_line or op.line
            plan.deletions.append(Deletion(
                "delete_range", path, files[path].sha256, end - op.line + 1,
                f"m.{op.kind} of dead op {op.namespace}::{op.op_name}", op.line, end,
                symbol=node[3:], category="op-registration"))
    summary.dead_ops = sorted(dead_ops)
