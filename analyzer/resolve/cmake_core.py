"""Resolve stage, CMake: the evaluator core behind ``analyzer.resolve.cmake``.

Scopes and variable values (each list element remembers the file/line/conditions it was
written at), ``${VAR}`` expansion, path resolution to repo paths or fetched repos, control
flow (``foreach``/``while``/``block``, user ``function``/``macro`` calls with
``cmake_parse_arguments``) and command dispatch. The command handlers that build the result
(variables, files, includes, fetches, targets) live in ``analyzer.resolve.cmake``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict

from analyzer.extract.cmake import CMakeArg, CMakeCommand, CmakeFacts
from analyzer.model import ParseProblem
from analyzer.resolve.cmake_cond import forced_values
from analyzer.resolve.cmake_model import CMakeOption, IncludeEdge, LineRange, SourceRef
from analyzer.resolve.cmake_paths import PathReads

VAR = re.compile(r"\$(ENV|CACHE)?\{([^${}]*)\}")
# text with no ``$`` and none of expand_str's markers: nothing to expand
_PLAIN = re.compile(r"[^$\x01\x02\x03]*").fullmatch
FETCH = re.compile(r"@fetch:([^/;\s\"'>]+)")
_MAX_DEPTH = 40
MAX_LOOP = 2000


@dataclass(frozen=True)
class Item:
    """One list element of a variable value, with where it was written."""

    text: str
    raw: str
    file: str
    line: int
    conds: tuple[str, ...]


@dataclass
class Scope:
    source_dir: str
    vars: dict[str, tuple[Item, ...]] = field(default_factory=dict)
    set_conds: dict[str, tuple[str, ...]] = field(default_factory=dict)
    include_dirs: list[Item] = field(default_factory=list)
    parent: Scope | None = None

    def child(self, source_dir: str) -> Scope:
        return Scope(source_dir, dict(self.vars), dict(self.set_conds),
                      list(self.include_dirs), self)


@dataclass(eq=False)
class Frame:
    """One call of a user function/macro made outside any function body (the outermost call):
    the targets its evaluation creates, and whether deleting the call would remove nothing
    else (``safe``; ``why`` names the first command that rules it out)."""

    function: str
    call_site: LineRange
    caller: Scope
    args: tuple[str, ...] = ()  # the call's arguments as written
    safe: bool = True
    why: str = ""
    targets: set[str] = field(default_factory=set)

    def unsafe(self, why: str) -> None:
        if self.safe:
            self.safe, self.why = False, why


@dataclass(frozen=True)
class Ctx:
    file: str
    list_dir: str
    conds: tuple[str, ...]
    depth: int = 0
    frame: Frame | None = None  # set while evaluating a user function/macro body


@dataclass
class Target:
    name: str
    kind: str
    file: str
    start_line: int
    end_line: int
    sources: list[SourceRef]
    include_items: list[Item]
    conditions: tuple[str, ...]
    source_dir: str
    frame: Frame | None = None  # the outermost call whose evaluation created it
    variables: list[str] = field(default_factory=list)


def dir_of(path: str) -> str:
    return posixpath.dirname(path)


def mark(directory: str) -> str:
    return "@repo/" + directory if directory else "@repo"


def unwrap(text: str) -> str:
    """``$<BUILD_INTERFACE:x>`` -> ``x`` (the only generator expression resolved)."""
    inner = re.fullmatch(r"\$<BUILD_INTERFACE:(.*)>", text)
    return inner.group(1) if inner else text


class Fetch(TypedDict):
    """A fetched repository while the evaluation runs (``FetchRepo`` once it is done)."""

    name: str
    file: str
    start: int
    end: int
    url: str | None
    ranges: list[LineRange]  # populate calls
    declares: list[LineRange]  # further declarations
    available: bool  # FetchContent_MakeAvailable


class EvaluatorCore:
    """State and machinery shared by all command handlers."""

    def __init__(self, facts: dict[str, CmakeFacts], files: PathReads,
                 forced: Mapping[str, bool | str] | None = None):
        self.facts = facts
        self.files = files  # (read only through it: its answers are recorded)
        # options whose value is fixed for the whole evaluation (every read, whatever
        # set()/option() says): name -> "ON"/"OFF"
        self.forced_options = dict(forced or {})
        self.forced = forced_values(self.forced_options)
        self.ran: dict[str, None] = {}  # every file evaluated, in order
        self.fetch_conds: dict[str, list[tuple[str, ...]]] = {}  # fetch -> conds of its calls
        self.visited: set[str] = set()
        self.targets: list[Target] = []
        self.configs: dict[str, list[tuple[LineRange | None, list[str]]]] = {}
        self.installs: dict[str, str] = {}
        self.fetches: dict[str, Fetch] = {}
        self.options: list[CMakeOption] = []
        self.includes: list[IncludeEdge] = []
        self.unresolved: dict[tuple[str, int, str, str], None] = {}
        self.problems: list[ParseProblem] = []
        self.functions: dict[str, tuple[list[str], list[CMakeCommand], bool, str]] = {}
        self.frames: list[Frame] = []
        self.target_vars: dict[str, list[str]] = {}  # target -> ${VAR}s of its config calls
        self.links: dict[str, list[str]] = {}  # target -> target_link_libraries items
        # target -> target_compile_definitions items as evaluated ("TORCH_EXTENSION_NAME=_C")
        self.definitions: dict[str, list[str]] = {}
        self.depends: dict[str, list[str]] = {}  # target -> add_dependencies, $<TARGET_..:x>
        self.root_dir = ""
        self.stack: list[str] = []

    # -- driving -----------------------------------------------------------------------------
    def run_root(self, path: str) -> None:
        self.root_dir = dir_of(path)
        self.visited.add(path)
        scope = Scope(self.root_dir)
        self.run_file(path, scope, Ctx(path, dir_of(path), ()))

    def run_file(self, path: str, scope: Scope, ctx: Ctx) -> None:
        if path in self.stack:
            self.problem(ctx.file, 0, f"include cycle through {path}")
            return
        if path not in self.facts:
            self.problem(ctx.file, 0, f"no CMake facts for {path}")
            return
        self.stack.append(path)
        self.ran[path] = None
        self.run(list(self.facts[path].commands), scope, ctx)
        self.stack.pop()

    def run(self, cmds: list[CMakeCommand], scope: Scope, ctx: Ctx) -> None:
        if ctx.depth > _MAX_DEPTH:
            self.problem(ctx.file, cmds[0].start_line if cmds else 0, "evaluation too deep")
            return
        i = 0
        while i < len(cmds):
            cmd = cmds[i]
            if cmd.name in ("function", "macro", "foreach", "while", "block"):
                end = self.block_end(cmds, i)
                body = cmds[i + 1:end]
                i = end + 1
                try:
                    self.block(cmd, body, scope, ctx)
                except RecursionError:
                    self.problem(ctx.file, cmd.start_line, "evaluation too deep")
                continue
            self.command(cmd, scope, ctx)
            i += 1

    def block_end(self, cmds: list[CMakeCommand], i: int) -> int:
        opener = cmds[i].name
        closer = "end" + opener
        depth = 0
        for j in range(i, len(cmds)):
            if cmds[j].name == opener:
                depth += 1
            elif cmds[j].name == closer:
                depth -= 1
                if depth == 0:
                    return j
        self.problem(self.stack[-1] if self.stack else "", cmds[i].start_line,
                     f"{opener}() without {closer}()")
        return len(cmds)

    def block(self, cmd: CMakeCommand, body: list[CMakeCommand], scope: Scope,
              ctx: Ctx) -> None:
        names = [a.value for a in cmd.args]
        if cmd.name in ("function", "macro"):
            if ctx.frame is not None:
                ctx.frame.unsafe(f"{cmd.name}() definition")
            if names:
                self.functions[names[0].lower()] = (names[1:], body, cmd.name == "macro",
                                                    ctx.file)
            return
        if cmd.name in ("while", "block"):
            self.run(body, scope, ctx)
            return
        items = self.expand(cmd.args[1:], scope, ctx, cmd)
        values = [it for it in items if it.text not in ("IN", "ITEMS")]
        if len(items) > 1 and items[0].text == "IN" and items[1].text in ("LISTS", "ZIP_LISTS"):
            values = [v for it in items[2:] if it.text != "ITEMS"
                      for v in self.var_items(it.text, scope)]
        if any(it.text == "RANGE" for it in items[:1]):
            values = []
            self.run(body, scope, ctx)
        var = names[0] if names else "_"
        for item in values[:MAX_LOOP]:
            self.assign(scope, var, (item,), ())
            self.run(body, scope, ctx)

    # -- helpers -----------------------------------------------------------------------------
    def problem(self, file: str, line: int, message: str) -> None:
        self.problems.append(ParseProblem(file, line, "cmake-eval", message))

    def unres(self, file: str, line: int, what: str, reason: str) -> None:
        self.unresolved[(file, line, what, reason)] = None

    def conds(self, cmd: CMakeCommand, ctx: Ctx) -> tuple[str, ...]:
        return ctx.conds + cmd.conditions

    def var_items(self, name: str, scope: Scope) -> tuple[Item, ...]:
        """The value of variable ``name`` as list elements (a forced option's, if forced)."""
        if name in self.forced:
            return (Item(self.forced[name], name, "", 0, ()),)
        return scope.vars.get(name, ())

    def lookup(self, name: str, scope: Scope, ctx: Ctx) -> str | None:
        if name in self.forced:
            return self.forced[name]
        if name == "CMAKE_CURRENT_LIST_DIR":
            return mark(ctx.list_dir)
        if name == "CMAKE_CURRENT_LIST_FILE":
            return "@repo/" + ctx.file
        if name == "CMAKE_CURRENT_SOURCE_DIR":
            return mark(scope.source_dir)
        if name in scope.vars:
            return ";".join(it.text for it in scope.vars[name])
        if name in ("CMAKE_SOURCE_DIR", "PROJECT_SOURCE_DIR", "CMAKE_HOME_DIRECTORY"):
            return mark(self.root_dir)
        return None

    def expand_str(self, text: str, scope: Scope, ctx: Ctx) -> str:
        if _PLAIN(text):  # (no reference, no marker: the loop below would return it as is)
            return text
        for _ in range(100):
            m = VAR.search(text)
            if m is None:
                break
            kind, name = m.group(1), m.group(2)
            value = None if kind == "ENV" else self.lookup(name, scope, ctx)
            if value is None:
                value = ("\x03" if kind == "ENV" else "\x01") + name + "\x02"
            text = text[: m.start()] + value + text[m.end():]
        return text.replace("\x01", "${").replace("\x03", "$ENV{").replace("\x02", "}")

    def expand(self, args: tuple[CMakeArg, ...] | list[CMakeArg], scope: Scope, ctx: Ctx,
               cmd: CMakeCommand) -> list[Item]:
        conds = self.conds(cmd, ctx)
        out: list[Item] = []
        for arg in args:
            m = VAR.fullmatch(arg.value)
            if m and not m.group(1) and m.group(2) in scope.vars \
                    and m.group(2) not in self.forced:
                for it in scope.vars[m.group(2)]:
                    if ";" not in it.text:  # (the element as it is: the same value)
                        out.append(it)
                        continue
                    out.extend(Item(p, it.raw, it.file, it.line, it.conds)
                               for p in it.text.split(";") if p)
                continue
            text = self.expand_str(arg.value, scope, ctx)
            parts = [text] if arg.quoted else [p for p in text.split(";") if p]
            out.extend(Item(p, arg.value, ctx.file, arg.line, conds) for p in parts)
        return out

    def assign(self, scope: Scope, name: str, items: tuple[Item, ...],
               conds: tuple[str, ...]) -> None:
        if name in scope.vars and scope.set_conds.get(name) != conds:
            seen = set(scope.vars[name])
            items = scope.vars[name] + tuple(it for it in items if it not in seen)
        scope.vars[name] = items
        scope.set_conds[name] = conds

    def resolve(self, text: str, base_dir: str) -> tuple[str | None, str | None, str | None]:
        """(repo path, fetch name, reason it is unresolved) for a path-like value."""
        text = unwrap(text)
        if "$<" in text:
            return None, None, "generator expression"
        fetch = FETCH.search(text)
        if fetch and text.startswith("@fetch:"):
            return None, fetch.group(1), None
        undefined = re.search(r"\$(?:ENV)?\{([^}]*)\}", text)
        if undefined:
            return None, None, f"undefined variable {undefined.group(0)}"
        if text.startswith("@repo"):
            rel = text[5:].lstrip("/")
        elif text.startswith("/"):
            return None, None, "absolute path outside the repository"
        else:
            rel = posixpath.join(base_dir, text)
        rel = posixpath.normpath(rel) if rel else ""
        rel = "" if rel == "." else rel
        if rel == ".." or rel.startswith("../"):
            return None, None, "path outside the repository"
        return rel, None, None

    def command(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        raise NotImplementedError  # the command handlers live in analyzer.resolve.cmake

    # -- user functions and macros -----------------------------------------------------------
    def call(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        params, body, is_macro, file = self.functions[cmd.name]
        items = tuple(self.expand(cmd.args, scope, ctx, cmd))
        inner = scope if is_macro else scope.child(scope.source_dir)
        for i, p in enumerate(params):
            inner.vars[p] = items[i:i + 1]
        inner.vars["ARGN"] = items[len(params):]
        inner.vars["ARGV"] = items
        frame = ctx.frame
        if frame is None:  # the outermost call: the targets it creates belong to it
            frame = Frame(cmd.name, LineRange(ctx.file, cmd.start_line, cmd.end_line), scope,
                          tuple(a.value for a in cmd.args))
            if is_macro:
                frame.unsafe("a macro body runs in the caller's scope")
            self.frames.append(frame)
        self.run(list(body), inner, Ctx(file, dir_of(file), self.conds(cmd, ctx), ctx.depth + 1,
                                        frame))

    def cmd_cmake_parse_arguments(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        args = list(cmd.args)
        if args and args[0].value == "PARSE_ARGV" and len(args) > 1:
            args = [*args[2:], CMakeArg("${ARGN}", False, cmd.start_line)]
        if len(args) < 4:
            return
        prefix = args[0].value
        kinds = [set(self.expand_str(a.value, scope, ctx).split(";")) - {""} for a in args[1:4]]
        current: str | None = None
        for key in kinds[0]:
            scope.vars.pop(f"{prefix}_{key}", None)
        for key in kinds[1] | kinds[2]:  # keywords not given are unset: they expand to ""
            scope.vars[f"{prefix}_{key}"] = ()
        for it in self.expand(args[4:], scope, ctx, cmd):
            if it.text in kinds[0]:
                scope.vars[f"{prefix}_{it.text}"] = (it,)
                current = None
            elif it.text in kinds[1] or it.text in kinds[2]:
                current = it.text
                scope.vars[f"{prefix}_{current}"] = ()
            elif current is not None:
                scope.vars[f"{prefix}_{current}"] += (it,)
                if current in kinds[1]:
                    current = None
