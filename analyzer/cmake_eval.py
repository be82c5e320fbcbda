"""Resolve stage, CMake: ``evaluate(facts_by_path, files) -> CMakeProject``.

Takes the syntactic ``CmakeFacts`` of every CMake file (extract stage) plus the set of all
discovered repo files, and evaluates the build description just far enough to say which
targets compile which sources, which repos are fetched, which options exist and which lines
configure each target. Pure: no filesystem access (``file(GLOB)`` matches against ``files``).

What is evaluated: ``set``/``unset``/``option``/``list(APPEND|PREPEND|REMOVE_ITEM)``,
``${VAR}`` (nested) with ``CMAKE_CURRENT_LIST_DIR``/``CMAKE_CURRENT_SOURCE_DIR``/
``PROJECT_SOURCE_DIR``, ``file(GLOB|GLOB_RECURSE)``, ``include()`` (same scope),
``add_subdirectory()`` (child scope), ``foreach``, user ``function``/``macro`` calls (with
``cmake_parse_arguments``), FetchContent/ExternalProject, target creation and configuration.
``if``/``else`` branches are NOT decided: every branch is evaluated, each target and source
entry records the conditions it sits under, and a ``set()`` under different conditions than
the variable's previous ``set()`` adds to the value instead of replacing it (all possibilities).

Paths: repo-relative POSIX. While evaluating, repo directories expand to ``@repo/<dir>`` and
a fetched repo's ``<name>_SOURCE_DIR`` to ``@fetch:<name>``; sources under a fetch are
attributed to it (``SourceRef.fetch``, ``path=None``). Anything that cannot be resolved is
listed in ``CMakeProject.unresolved``; nothing is silently dropped.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from analyzer.cmake_model import (
    CMakeOption,
    CMakeProject,
    CMakeTarget,
    FetchRepo,
    IncludeEdge,
    LineRange,
    SourceRef,
    Unresolved,
)
from analyzer.extract.cmake import CMakeArg, CMakeCommand, CmakeFacts
from analyzer.model import ParseProblem

__all__ = [
    "CMakeOption", "CMakeProject", "CMakeTarget", "FetchRepo", "IncludeEdge", "LineRange",
    "SourceRef", "Unresolved", "evaluate",
]

_VAR = re.compile(r"\$(ENV|CACHE)?\{([^${}]*)\}")
_FETCH = re.compile(r"@fetch:([^/;\s\"'>]+)")
_MAX_DEPTH = 40
_MAX_LOOP = 2000
_TARGET_COMMANDS = {
    "add_library", "python_add_library", "pybind11_add_module", "add_executable",
    "cuda_add_library", "cuda_add_executable", "add_custom_target",
}
_TARGET_KEYWORDS = {
    "STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "EXCLUDE_FROM_ALL", "WITH_SOABI",
    "NO_EXTRAS", "THIN_LTO", "OPT_SIZE", "SYSTEM", "WIN32", "MACOSX_BUNDLE", "GLOBAL", "UNKNOWN",
}
_SCOPE_KEYWORDS = {"PRIVATE", "PUBLIC", "INTERFACE", "SYSTEM", "BEFORE", "AFTER"}
_INSTALL_KEYWORDS = {
    "EXPORT", "ARCHIVE", "LIBRARY", "RUNTIME", "OBJECTS", "FRAMEWORK", "BUNDLE", "RESOURCE",
    "PRIVATE_HEADER", "PUBLIC_HEADER", "FILE_SET", "DESTINATION", "PERMISSIONS", "COMPONENT",
    "CONFIGURATIONS", "INCLUDES", "OPTIONAL", "NAMELINK_ONLY", "NAMELINK_SKIP",
}
_FETCH_POPULATE = {"fetchcontent_populate", "fetchcontent_makeavailable",
                   "fetchcontent_getproperties"}


@dataclass(frozen=True)
class _Item:
    """One list element of a variable value, with where it was written."""

    text: str
    raw: str
    file: str
    line: int
    conds: tuple[str, ...]


@dataclass
class _Scope:
    source_dir: str
    vars: dict[str, tuple[_Item, ...]] = field(default_factory=dict)
    set_conds: dict[str, tuple[str, ...]] = field(default_factory=dict)
    include_dirs: list[_Item] = field(default_factory=list)
    parent: _Scope | None = None

    def child(self, source_dir: str) -> _Scope:
        return _Scope(source_dir, dict(self.vars), dict(self.set_conds),
                      list(self.include_dirs), self)


@dataclass(frozen=True)
class _Ctx:
    file: str
    list_dir: str
    conds: tuple[str, ...]
    depth: int = 0


@dataclass
class _Target:
    name: str
    kind: str
    file: str
    start_line: int
    end_line: int
    sources: list[SourceRef]
    include_items: list[_Item]
    conditions: tuple[str, ...]
    source_dir: str


def evaluate(facts_by_path: dict[str, CmakeFacts], files: set[str] | frozenset[str],
             roots: tuple[str, ...] | None = None) -> CMakeProject:
    """Evaluate every top-level CMakeLists.txt (or the given ``roots``) into a project."""
    ev = _Evaluator(facts_by_path, set(files))
    if roots is None:
        lists = sorted((p for p in facts_by_path if posixpath.basename(p) == "CMakeLists.txt"),
                       key=lambda p: (p.count("/"), p))
    else:
        lists = list(roots)
    for path in lists:
        if path not in ev.visited:
            ev.run_root(path)
    return ev.result()


def _dir(path: str) -> str:
    return posixpath.dirname(path)


def _mark(directory: str) -> str:
    return "@repo/" + directory if directory else "@repo"


class _Evaluator:
    def __init__(self, facts: dict[str, CmakeFacts], files: set[str]):
        self.facts = facts
        self.files = files
        self.visited: set[str] = set()
        self.targets: list[_Target] = []
        self.configs: dict[str, list[tuple[LineRange, list[str]]]] = {}
        self.installs: dict[str, str] = {}
        self.fetches: dict[str, dict] = {}
        self.options: list[CMakeOption] = []
        self.includes: list[IncludeEdge] = []
        self.unresolved: dict[tuple[str, int, str, str], None] = {}
        self.problems: list[ParseProblem] = []
        self.functions: dict[str, tuple[list[str], list[CMakeCommand], bool, str]] = {}
        self.root_dir = ""
        self.stack: list[str] = []

    # -- driving -----------------------------------------------------------------------------
    def run_root(self, path: str) -> None:
        self.root_dir = _dir(path)
        self.visited.add(path)
        scope = _Scope(self.root_dir)
        self.run_file(path, scope, _Ctx(path, _dir(path), ()))

    def run_file(self, path: str, scope: _Scope, ctx: _Ctx) -> None:
        if path in self.stack:
            self.problem(ctx.file, 0, f"include cycle through {path}")
            return
        self.stack.append(path)
        self.run(list(self.facts[path].commands), scope, ctx)
        self.stack.pop()

    def run(self, cmds: list[CMakeCommand], scope: _Scope, ctx: _Ctx) -> None:
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

    def block(self, cmd: CMakeCommand, body: list[CMakeCommand], scope: _Scope,
              ctx: _Ctx) -> None:
        names = [a.value for a in cmd.args]
        if cmd.name in ("function", "macro"):
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
                      for v in scope.vars.get(it.text, ())]
        if any(it.text == "RANGE" for it in items[:1]):
            values = []
            self.run(body, scope, ctx)
        var = names[0] if names else "_"
        for item in values[:_MAX_LOOP]:
            self.assign(scope, var, (item,), ())
            self.run(body, scope, ctx)

    # -- helpers -----------------------------------------------------------------------------
    def problem(self, file: str, line: int, message: str) -> None:
        self.problems.append(ParseProblem(file, line, "cmake-eval", message))

    def unres(self, file: str, line: int, what: str, reason: str) -> None:
        self.unresolved[(file, line, what, reason)] = None

    def conds(self, cmd: CMakeCommand, ctx: _Ctx) -> tuple[str, ...]:
        return ctx.conds + cmd.conditions

    def lookup(self, name: str, scope: _Scope, ctx: _Ctx) -> str | None:
        if name == "CMAKE_CURRENT_LIST_DIR":
            return _mark(ctx.list_dir)
        if name == "CMAKE_CURRENT_LIST_FILE":
            return "@repo/" + ctx.file
        if name == "CMAKE_CURRENT_SOURCE_DIR":
            return _mark(scope.source_dir)
        if name in scope.vars:
            return ";".join(it.text for it in scope.vars[name])
        if name in ("CMAKE_SOURCE_DIR", "PROJECT_SOURCE_DIR", "CMAKE_HOME_DIRECTORY"):
            return _mark(self.root_dir)
        return None

    def expand_str(self, text: str, scope: _Scope, ctx: _Ctx) -> str:
        for _ in range(100):
            m = _VAR.search(text)
            if m is None:
                break
            kind, name = m.group(1), m.group(2)
            value = None if kind == "ENV" else self.lookup(name, scope, ctx)
            if value is None:
                value = ("\x03" if kind == "ENV" else "\x01") + name + "\x02"
            text = text[: m.start()] + value + text[m.end():]
        return text.replace("\x01", "${").replace("\x03", "$ENV{").replace("\x02", "}")

    def expand(self, args: tuple[CMakeArg, ...] | list[CMakeArg], scope: _Scope, ctx: _Ctx,
               cmd: CMakeCommand) -> list[_Item]:
        conds = self.conds(cmd, ctx)
        out: list[_Item] = []
        for arg in args:
            m = _VAR.fullmatch(arg.value)
            if m and not m.group(1) and m.group(2) in scope.vars:
                for it in scope.vars[m.group(2)]:
                    parts = [p for p in it.text.split(";") if p] if ";" in it.text else [it.text]
                    out.extend(_Item(p, it.raw, it.file, it.line, it.conds) for p in parts)
                continue
            text = self.expand_str(arg.value, scope, ctx)
            parts = [text] if arg.quoted else [p for p in text.split(";") if p]
            out.extend(_Item(p, arg.value, ctx.file, arg.line, conds) for p in parts)
        return out

    def assign(self, scope: _Scope, name: str, items: tuple[_Item, ...],
               conds: tuple[str, ...]) -> None:
        if name in scope.vars and scope.set_conds.get(name) != conds:
            seen = set(scope.vars[name])
            items = scope.vars[name] + tuple(it for it in items if it not in seen)
        scope.vars[name] = items
        scope.set_conds[name] = conds

    def resolve(self, text: str, base_dir: str) -> tuple[str | None, str | None, str | None]:
        """(repo path, fetch name, reason it is unresolved) for a path-like value."""
        text = _unwrap(text)
        if "$<" in text:
            return None, None, "generator expression"
        fetch = _FETCH.search(text)
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

    # -- commands ----------------------------------------------------------------------------
    def command(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        name = cmd.name
        handler = getattr(self, "cmd_" + name, None)
        if handler is not None:
            handler(cmd, scope, ctx)
        elif name in _TARGET_COMMANDS:
            self.add_target(cmd, scope, ctx)
        elif name in _FETCH_POPULATE:
            self.populate(cmd, scope, ctx)
        elif name.startswith("target_") or name in ("add_dependencies", "get_target_property",
                                                    "set_target_properties"):
            self.configure(cmd, scope, ctx)
        elif name in self.functions:
            self.call(cmd, scope, ctx)

    def cmd_set(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        if not cmd.args:
            return
        name = self.expand_str(cmd.args[0].value, scope, ctx)
        items = self.expand(cmd.args[1:], scope, ctx, cmd)
        texts = [it.text for it in items]
        if "PARENT_SCOPE" in texts:
            if scope.parent is not None:
                self.assign(scope.parent, name, tuple(items[: texts.index("PARENT_SCOPE")]),
                            self.conds(cmd, ctx))
            return
        if "CACHE" in texts:
            if name not in scope.vars:
                self.assign(scope, name, tuple(items[: texts.index("CACHE")]),
                            self.conds(cmd, ctx))
            return
        if not items:
            scope.vars.pop(name, None)
            return
        self.assign(scope, name, tuple(items), self.conds(cmd, ctx))

    def cmd_unset(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        if cmd.args and not cmd.conditions:
            scope.vars.pop(self.expand_str(cmd.args[0].value, scope, ctx), None)

    def cmd_option(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        if not cmd.args:
            return
        name = self.expand_str(cmd.args[0].value, scope, ctx)
        values = self.expand(cmd.args[2:3], scope, ctx, cmd)
        default = "OFF" if len(cmd.args) < 3 else cmd.args[2].value
        if len(values) == 1:
            default = values[0].text
        self.options.append(CMakeOption(name, default, ctx.file, cmd.start_line))
        if name not in scope.vars:
            self.assign(scope, name, (_Item(default, default, ctx.file, cmd.start_line,
                                             self.conds(cmd, ctx)),), ())

    cmd_cmake_dependent_option = cmd_option

    def cmd_list(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        if len(cmd.args) < 2:
            return
        op = cmd.args[0].value.upper()
        name = self.expand_str(cmd.args[1].value, scope, ctx)
        items = tuple(self.expand(cmd.args[2:], scope, ctx, cmd))
        old = scope.vars.get(name, ())
        if op == "APPEND":
            scope.vars[name] = old + items
        elif op == "PREPEND":
            scope.vars[name] = items + old
        elif op == "REMOVE_ITEM" and not cmd.conditions:
            drop = {it.text for it in items}
            scope.vars[name] = tuple(it for it in old if it.text not in drop)
        scope.set_conds.setdefault(name, self.conds(cmd, ctx))

    def cmd_file(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        if len(cmd.args) < 2 or cmd.args[0].value.upper() not in ("GLOB", "GLOB_RECURSE"):
            return
        recurse = cmd.args[0].value.upper() == "GLOB_RECURSE"
        var = self.expand_str(cmd.args[1].value, scope, ctx)
        items = self.expand(cmd.args[2:], scope, ctx, cmd)
        relative: str | None = None
        found: list[_Item] = []
        skip = False
        for idx, it in enumerate(items):
            if skip:
                skip = False
                continue
            if it.text in ("LIST_DIRECTORIES", "RELATIVE"):
                skip = True
                if it.text == "RELATIVE" and idx + 1 < len(items):
                    relative = self.resolve(items[idx + 1].text, scope.source_dir)[0]
                continue
            if it.text in ("CONFIGURE_DEPENDS", "FOLLOW_SYMLINKS"):
                continue
            path, _fetch, _reason = self.resolve(it.text, scope.source_dir)
            if path is None:  # fetched repo or unresolved: keep the pattern as one entry
                found.append(it)
                continue
            rx = _glob_regex(path, recurse)
            for f in sorted(f for f in self.files if rx.match(f)):
                text = posixpath.relpath(f, relative) if relative is not None else "@repo/" + f
                found.append(_Item(text, it.raw, it.file, it.line, it.conds))
        self.assign(scope, var, tuple(found), self.conds(cmd, ctx))

    def cmd_project(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        here = (_Item(_mark(scope.source_dir), "", ctx.file, cmd.start_line, ()),)
        for var in ("PROJECT_SOURCE_DIR",
                    *([cmd.args[0].value + "_SOURCE_DIR"] if cmd.args else [])):
            scope.vars[var] = here

    def cmd_include_directories(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        scope.include_dirs.extend(it for it in self.expand(cmd.args, scope, ctx, cmd)
                                  if it.text not in _SCOPE_KEYWORDS)

    def cmd_include(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        items = self.expand(cmd.args[:1], scope, ctx, cmd)
        if not items:
            return
        text = items[0].text
        raw = cmd.args[0].value
        if "/" not in text and not text.endswith(".cmake") and "${" not in text:
            module_dirs = [self.resolve(it.text, scope.source_dir)[0]
                           for it in scope.vars.get("CMAKE_MODULE_PATH", ())]
            target = next((posixpath.join(d, text + ".cmake") for d in module_dirs
                           if d is not None and posixpath.join(d, text + ".cmake")
                           in self.facts), None)
            if target is None:
                return  # a CMake module (FetchContent, ExternalProject, ...): external
        else:
            target, fetch, reason = self.resolve(text, scope.source_dir)
            if target is None or target not in self.facts:
                self.includes.append(IncludeEdge(ctx.file, None, raw, cmd.start_line,
                                                 cmd.start_line, cmd.end_line, "include"))
                if fetch is None:
                    self.unres(ctx.file, cmd.start_line, raw, reason or "file not found")
                return
        self.includes.append(IncludeEdge(ctx.file, target, raw, cmd.start_line, cmd.start_line,
                                         cmd.end_line, "include"))
        self.run_file(target, scope, _Ctx(target, _dir(target), self.conds(cmd, ctx),
                                          ctx.depth + 1))

    def cmd_add_subdirectory(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        items = self.expand(cmd.args[:1], scope, ctx, cmd)
        if not items:
            return
        raw = cmd.args[0].value
        directory, fetch, reason = self.resolve(items[0].text, scope.source_dir)
        target = posixpath.join(directory, "CMakeLists.txt") if directory is not None else None
        if target is None or target not in self.facts:
            self.includes.append(IncludeEdge(ctx.file, None, raw, cmd.start_line,
                                             cmd.start_line, cmd.end_line, "add_subdirectory"))
            if fetch is None:
                self.unres(ctx.file, cmd.start_line, raw, reason or "no CMakeLists.txt there")
            return
        self.includes.append(IncludeEdge(ctx.file, target, raw, cmd.start_line, cmd.start_line,
                                         cmd.end_line, "add_subdirectory"))
        self.visited.add(target)
        assert directory is not None
        self.run_file(target, scope.child(directory),
                      _Ctx(target, directory, self.conds(cmd, ctx), ctx.depth + 1))

    # -- fetched repositories ----------------------------------------------------------------
    def fetch_declared(self, name: str, scope: _Scope, url: str | None, cmd: CMakeCommand,
                       ctx: _Ctx) -> None:
        if name not in self.fetches:
            self.fetches[name] = {"name": name, "file": ctx.file, "start": cmd.start_line,
                                  "end": cmd.end_line, "url": url, "ranges": []}
        marker = (_Item("@fetch:" + name, "", ctx.file, cmd.start_line, ()),)
        for var in {name + "_SOURCE_DIR", name.lower() + "_SOURCE_DIR"}:
            scope.vars[var] = marker

    def cmd_fetchcontent_declare(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        items = [it.text for it in self.expand(cmd.args, scope, ctx, cmd)]
        if items:
            self.fetch_declared(items[0], scope, _url(items), cmd, ctx)

    cmd_externalproject_add = cmd_fetchcontent_declare

    def populate(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        items = [it.text for it in self.expand(cmd.args, scope, ctx, cmd)]
        names = items if cmd.name == "fetchcontent_makeavailable" else items[:1]
        for name in names:
            if name not in self.fetches:
                self.fetch_declared(name, scope, _url(items), cmd, ctx)
            self.fetches[name]["ranges"].append(LineRange(ctx.file, cmd.start_line,
                                                          cmd.end_line))
            if "SOURCE_DIR" in items[1:-1] and cmd.name == "fetchcontent_getproperties":
                var = items[items.index("SOURCE_DIR") + 1]
                scope.vars[var] = (_Item("@fetch:" + name, "", ctx.file, cmd.start_line, ()),)

    # -- targets -----------------------------------------------------------------------------
    def add_target(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        items = self.expand(cmd.args, scope, ctx, cmd)
        if not items:
            return
        texts = [it.text for it in items]
        if "ALIAS" in texts or "IMPORTED" in texts:
            return
        sources: list[_Item] = []
        if cmd.name != "add_custom_target":
            rest = iter(items[1:])
            for it in rest:
                if it.text == "USE_SABI":
                    next(rest, None)
                elif it.text == "OPTIONS" and cmd.name.startswith("cuda_"):
                    break
                elif it.text not in _TARGET_KEYWORDS:
                    sources.append(it)
        target = _Target(items[0].text, cmd.name, ctx.file, cmd.start_line, cmd.end_line, [],
                         list(scope.include_dirs), self.conds(cmd, ctx), scope.source_dir)
        self.add_sources(target, sources)
        self.targets.append(target)

    def add_sources(self, target: _Target, items: list[_Item]) -> None:
        for it in items:
            path, fetch, reason = self.resolve(it.text, target.source_dir)
            if path is not None and path not in self.files:
                path, reason = None, f"no such file in the repository: {path}"
            if path is None and fetch is None:
                self.unres(it.file, it.line, it.raw or it.text,
                           f"source of {target.name}: {reason}")
            target.sources.append(SourceRef(path, it.raw or it.text, it.file, it.line, fetch,
                                            it.conds))

    def configure(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx,
                  names: list[str] | None = None) -> None:
        items = self.expand(cmd.args, scope, ctx, cmd)
        texts = [it.text for it in items]
        if names is None:
            if cmd.name == "set_target_properties":
                names = texts[: texts.index("PROPERTIES")] if "PROPERTIES" in texts else texts
            elif cmd.name == "get_target_property":
                names = texts[1:2]
            else:
                names = texts[:1]
        span = LineRange(ctx.file, cmd.start_line, cmd.end_line)
        for name in names:
            self.configs.setdefault(name, []).append((span, texts))
        if cmd.name in ("target_sources", "target_include_directories"):
            for target in self.targets:
                if names and target.name == names[0]:
                    rest = [it for it in items[1:] if it.text not in _SCOPE_KEYWORDS]
                    if cmd.name == "target_sources":
                        self.add_sources(target, rest)
                    else:
                        target.include_items.extend(rest)

    def cmd_set_property(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        texts = [a.value for a in cmd.args]
        if texts[:1] == ["TARGET"]:
            names = []
            for t in texts[1:]:
                if t in ("APPEND", "APPEND_STRING", "PROPERTY"):
                    break
                names.append(self.expand_str(t, scope, ctx))
            self.configure(cmd, scope, ctx, names)

    def cmd_install(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        texts = [it.text for it in self.expand(cmd.args, scope, ctx, cmd)]
        if texts[:1] != ["TARGETS"]:
            return
        names = []
        for t in texts[1:]:
            if t in _INSTALL_KEYWORDS:
                break
            names.append(t)
        dest = texts[texts.index("DESTINATION") + 1] if "DESTINATION" in texts[:-1] else None
        for name in names:
            if dest is not None:
                self.installs.setdefault(name, dest)
        self.configure(cmd, scope, ctx, names)

    # -- user functions and macros -----------------------------------------------------------
    def call(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        params, body, is_macro, file = self.functions[cmd.name]
        items = tuple(self.expand(cmd.args, scope, ctx, cmd))
        inner = scope if is_macro else scope.child(scope.source_dir)
        for i, p in enumerate(params):
            inner.vars[p] = items[i:i + 1]
        inner.vars["ARGN"] = items[len(params):]
        inner.vars["ARGV"] = items
        self.run(list(body), inner, _Ctx(file, _dir(file), self.conds(cmd, ctx), ctx.depth + 1))

    def cmd_cmake_parse_arguments(self, cmd: CMakeCommand, scope: _Scope, ctx: _Ctx) -> None:
        args = list(cmd.args)
        if args and args[0].value == "PARSE_ARGV" and len(args) > 1:
            args = [*args[2:], CMakeArg("${ARGN}", False, cmd.start_line)]
        if len(args) < 4:
            return
        prefix = args[0].value
        kinds = [set(self.expand_str(a.value, scope, ctx).split(";")) - {""} for a in args[1:4]]
        current: str | None = None
        for key in kinds[0] | kinds[1] | kinds[2]:
            scope.vars.pop(f"{prefix}_{key}", None)
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

    # -- result ------------------------------------------------------------------------------
    def result(self) -> CMakeProject:
        targets = []
        for t in self.targets:
            configs = self.configs.get(t.name, [])
            include_dirs: list[str] = []
            for it in t.include_items:
                path, fetch, reason = self.resolve(it.text, t.source_dir)
                if path is not None:
                    include_dirs.append(path)
                elif fetch is not None:
                    include_dirs.append(_unwrap(it.text))
                else:
                    include_dirs.append(it.raw or it.text)
                    self.unres(it.file, it.line, it.raw or it.text,
                               f"include directory of {t.name}: {reason}")
            fetches = {s.fetch for s in t.sources if s.fetch}
            fetches |= {m.group(1) for d in include_dirs for m in _FETCH.finditer(d)}
            fetches |= {m.group(1) for _span, texts in configs for x in texts
                        for m in _FETCH.finditer(x)}
            targets.append(CMakeTarget(
                t.name, t.kind, t.file, t.start_line, t.end_line, tuple(t.sources),
                tuple(dict.fromkeys(include_dirs)), tuple(sorted(fetches)),
                tuple(span for span, _texts in configs), self.installs.get(t.name),
                t.conditions))
        fetches = tuple(FetchRepo(f["name"], f["file"], f["start"], f["end"], f["url"],
                                  tuple(f["ranges"])) for f in self.fetches.values())
        unresolved = tuple(Unresolved(*key) for key in self.unresolved)
        return CMakeProject(tuple(targets), fetches, tuple(self.options), tuple(self.includes),
                            unresolved, tuple(self.problems))


def _unwrap(text: str) -> str:
    """``$<BUILD_INTERFACE:x>`` -> ``x`` (the only generator expression resolved)."""
    inner = re.fullmatch(r"\$<BUILD_INTERFACE:(.*)>", text)
    return inner.group(1) if inner else text


def _url(items: list[str]) -> str | None:
    for key in ("GIT_REPOSITORY", "URL"):
        if key in items[:-1]:
            return items[items.index(key) + 1]
    return None


def _glob_regex(pattern: str, recurse: bool) -> re.Pattern[str]:
    def tr(part: str) -> str:
        out = []
        for ch in part:
            out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
        return "".join(out)

    if not recurse:
        return re.compile("^" + tr(pattern) + "$")
    head, _, tail = pattern.rpartition("/")
    prefix = tr(head) + "/" if head else ""
    return re.compile("^" + prefix + "(?:.*/)?" + tr(tail) + "$")
