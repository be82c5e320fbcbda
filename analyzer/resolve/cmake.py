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

Functions: a target created inside a user ``function()`` body is attributed to the outermost
call (``CMakeTarget.created_in``); ``call_site`` is that call when every command its
evaluation ran only computes local values or creates/configures the targets the call creates
(so deleting the call removes those targets and nothing else), else ``None`` and the reason is
listed as unresolved. Configuring commands inside function bodies are never part of a
target's ``config_ranges``: function bodies are shared by every call.

Paths: repo-relative POSIX. While evaluating, repo directories expand to ``@repo/<dir>`` and
a fetched repo's ``<name>_SOURCE_DIR`` to ``@fetch:<name>``; sources under a fetch are
attributed to it (``SourceRef.fetch``, ``path=None``). Anything that cannot be resolved is
listed in ``CMakeProject.unresolved``; nothing is silently dropped.

Forced options: ``evaluate(..., options={"ENABLE_FA3": False})`` fixes those variables for the
whole evaluation (the values a profile's dropped features give them): every read sees the
forced value, whatever ``set()``/``option()`` say. Branches are still all evaluated, but what
sits under an ``if()``-condition that is false with the forced values (decided by
``analyzer.resolve.cmake_cond``: ``if(OPT)``, ``if(NOT OPT)``, ``if(OPT AND X)``, ...) is
marked: a target created there is not built (``CMakeTarget.off``), a source entry listed there
is not compiled (``SourceRef.off``), a repository declared only there is not fetched
(``FetchRepo.off``), and each ``if()`` statement none of whose commands can run is listed in
``CMakeProject.off_blocks``. Without forced options nothing is marked.

Layout: result types in ``analyzer.resolve.cmake_model``; scopes, expansion, path resolution and
control flow in ``analyzer.resolve.cmake_core``; the command handlers and ``evaluate`` here.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Mapping

from analyzer.extract.cmake import CMakeCommand, CmakeFacts
from analyzer.resolve.cmake_archs import target_archs
from analyzer.resolve.cmake_cond import condition_options, is_false
from analyzer.resolve.cmake_core import (
    FETCH,
    Ctx,
    EvaluatorCore,
    Frame,
    Item,
    Scope,
    Target,
    dir_of,
    mark,
    unwrap,
)
from analyzer.resolve.cmake_model import (
    CMakeOption,
    CMakeProject,
    CMakeTarget,
    FetchRepo,
    IncludeEdge,
    LineRange,
    OffBlock,
    SourceRef,
    Unresolved,
)
from analyzer.resolve.cmake_paths import PathReads, Reads

__all__ = [
    "CMakeOption", "CMakeProject", "CMakeTarget", "FetchRepo", "IncludeEdge", "LineRange",
    "OffBlock", "SourceRef", "Unresolved", "evaluate", "if_statements",
]
_CONTROL = frozenset({"if", "elseif", "else", "endif"})

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
_LINK_KEYWORDS = {"PRIVATE", "PUBLIC", "INTERFACE", "LINK_PUBLIC", "LINK_PRIVATE",
                  "LINK_INTERFACE_LIBRARIES", "debug", "optimized", "general"}
_TARGET_GENEX = re.compile(r"\$<TARGET_[A-Z_]+:([A-Za-z0-9_.+\-]+)")
_VAR_NAME = re.compile(r"\$\{([A-Za-z0-9_.+\-]+)\}")
# commands a function body may run while its call stays removable: local values only
_FRAME_LOCAL = {
    "set", "unset", "list", "string", "math", "cmake_parse_arguments", "message",
    "separate_arguments", "get_filename_component", "get_property", "get_target_property",
    "get_source_file_property", "get_directory_property", "cmake_path", "if", "elseif", "else",
    "endif", "endforeach", "endwhile", "endblock", "endfunction", "endmacro", "return", "break",
    "continue", "execute_process", "file",
}
_FILE_READ_ONLY = {"GLOB", "GLOB_RECURSE", "RELATIVE_PATH", "TO_CMAKE_PATH", "TO_NATIVE_PATH",
                   "REAL_PATH", "READ", "STRINGS"}
# commands configuring the target named by their first argument
_FRAME_CONFIGURE = {"set_target_properties", "add_dependencies", "target_link_libraries",
                    "target_sources", "target_include_directories",
                    "target_compile_definitions", "target_compile_options",
                    "target_compile_features", "target_link_options",
                    "target_link_directories", "target_precompile_headers"}


def evaluate(facts_by_path: dict[str, CmakeFacts], files: set[str] | frozenset[str],
             roots: tuple[str, ...] | None = None,
             options: Mapping[str, bool | str] | None = None) -> CMakeProject:
    """Evaluate every top-level CMakeLists.txt (or the given ``roots``) into a project;
    ``options`` are CMake options/variables forced to a value for the whole evaluation."""
    return evaluate_reading(facts_by_path, files, roots, options)[0]


def evaluate_reading(facts_by_path: dict[str, CmakeFacts], files: set[str] | frozenset[str],
                     roots: tuple[str, ...] | None = None,
                     options: Mapping[str, bool | str] | None = None
                     ) -> tuple[CMakeProject, Reads]:
    """:func:`evaluate`, with what it read of ``files`` (``analyzer.resolve.cmake_paths``):
    the same project for any set of paths giving the same answers."""
    paths = PathReads(frozenset(files))
    ev = _Evaluator(facts_by_path, paths, options)
    if roots is None:
        lists = sorted((p for p in facts_by_path if posixpath.basename(p) == "CMakeLists.txt"),
                       key=lambda p: (p.count("/"), p))
    else:
        lists = list(roots)
    for path in lists:
        if path not in ev.visited:
            ev.run_root(path)
    return ev.result(), paths.reads()


class _Evaluator(EvaluatorCore):
    # -- commands ----------------------------------------------------------------------------
    def command(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        name = cmd.name
        if ctx.frame is not None and ctx.frame.safe:
            self.check_frame(ctx.frame, cmd, scope, ctx)
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

    def check_frame(self, frame: Frame, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        """Mark ``frame`` unsafe when ``cmd`` does anything but compute local values or
        create/configure targets of this call (deleting the call would lose it)."""
        name = cmd.name
        texts = [a.value for a in cmd.args]
        where = f"{name}() at {ctx.file}:{cmd.start_line}"
        if name in ("set", "unset"):
            if "CACHE" in texts:
                frame.unsafe(f"{where} sets a cache variable")
            elif "PARENT_SCOPE" in texts and scope.parent is frame.caller:
                frame.unsafe(f"{where} sets a variable of the caller")
        elif name == "file":
            if not texts or texts[0].upper() not in _FILE_READ_ONLY:
                frame.unsafe(f"{where} writes files")
        elif name == "execute_process":
            if any(t in ("OUTPUT_FILE", "ERROR_FILE", "INPUT_FILE") for t in texts):
                frame.unsafe(f"{where} writes files")
        elif name in _FRAME_LOCAL or name in self.functions:
            return  # user calls: their bodies are checked as they run
        elif name in _TARGET_COMMANDS:
            if "ALIAS" in texts or "IMPORTED" in texts:
                frame.unsafe(f"{where} defines an alias or imported target")
        elif name in _FRAME_CONFIGURE or name == "install" or (
                name == "set_property" and texts[:1] == ["TARGET"]):
            expanded = [self.expand_str(t, scope, ctx) for t in texts]
            if name == "install":
                if expanded[:1] != ["TARGETS"]:
                    frame.unsafe(f"{where} installs files")
                    return
                names = []
                for t in expanded[1:]:
                    if t in _INSTALL_KEYWORDS:
                        break
                    names.append(t)
            elif name == "set_property":
                names = []
                for t in expanded[1:]:
                    if t in ("APPEND", "APPEND_STRING", "PROPERTY"):
                        break
                    names.append(t)
            elif name == "set_target_properties":
                names = expanded[: expanded.index("PROPERTIES")] \
                    if "PROPERTIES" in expanded else expanded
            else:
                names = expanded[:1]
            if not names or any(n not in frame.targets for n in names):
                frame.unsafe(f"{where} configures a target this call does not create")
        else:
            frame.unsafe(f"{where} has effects outside the call")

    def cmd_set(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
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

    def cmd_unset(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        if cmd.args and not cmd.conditions:
            scope.vars.pop(self.expand_str(cmd.args[0].value, scope, ctx), None)

    def cmd_option(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        if not cmd.args:
            return
        name = self.expand_str(cmd.args[0].value, scope, ctx)
        values = self.expand(cmd.args[2:3], scope, ctx, cmd)
        default = "OFF" if len(cmd.args) < 3 else cmd.args[2].value
        if len(values) == 1:
            default = values[0].text
        self.options.append(CMakeOption(name, default, ctx.file, cmd.start_line))
        if name not in scope.vars:
            self.assign(scope, name, (Item(default, default, ctx.file, cmd.start_line,
                                             self.conds(cmd, ctx)),), ())

    cmd_cmake_dependent_option = cmd_option

    def cmd_list(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
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

    def cmd_file(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        if len(cmd.args) < 2 or cmd.args[0].value.upper() not in ("GLOB", "GLOB_RECURSE"):
            return
        recurse = cmd.args[0].value.upper() == "GLOB_RECURSE"
        var = self.expand_str(cmd.args[1].value, scope, ctx)
        items = self.expand(cmd.args[2:], scope, ctx, cmd)
        relative: str | None = None
        found: list[Item] = []
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
            for f in self.files.glob(path, recurse):
                text = posixpath.relpath(f, relative) if relative is not None else "@repo/" + f
                found.append(Item(text, it.raw, it.file, it.line, it.conds))
        self.assign(scope, var, tuple(found), self.conds(cmd, ctx))

    def cmd_project(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        here = (Item(mark(scope.source_dir), "", ctx.file, cmd.start_line, ()),)
        for var in ("PROJECT_SOURCE_DIR",
                    *([cmd.args[0].value + "_SOURCE_DIR"] if cmd.args else [])):
            scope.vars[var] = here

    def cmd_include_directories(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        scope.include_dirs.extend(it for it in self.expand(cmd.args, scope, ctx, cmd)
                                  if it.text not in _SCOPE_KEYWORDS)

    def cmd_include(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
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
        self.run_file(target, scope, Ctx(target, dir_of(target), self.conds(cmd, ctx),
                                          ctx.depth + 1, ctx.frame))

    def cmd_add_subdirectory(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
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
                      Ctx(target, directory, self.conds(cmd, ctx), ctx.depth + 1, ctx.frame))

    # -- fetched repositories ----------------------------------------------------------------
    def fetch_declared(self, name: str, scope: Scope, url: str | None, cmd: CMakeCommand,
                       ctx: Ctx) -> None:
        self.fetch_conds.setdefault(name, []).append(self.conds(cmd, ctx))
        if name not in self.fetches:
            self.fetches[name] = {"name": name, "file": ctx.file, "start": cmd.start_line,
                                  "end": cmd.end_line, "url": url, "ranges": [],
                                  "declares": [], "available": False}
        elif cmd.name in ("fetchcontent_declare", "externalproject_add"):
            span = LineRange(ctx.file, cmd.start_line, cmd.end_line)
            first = LineRange(self.fetches[name]["file"], self.fetches[name]["start"],
                              self.fetches[name]["end"])
            if span != first and span not in self.fetches[name]["declares"]:
                self.fetches[name]["declares"].append(span)
        marker = (Item("@fetch:" + name, "", ctx.file, cmd.start_line, ()),)
        for var in {name + "_SOURCE_DIR", name.lower() + "_SOURCE_DIR"}:
            scope.vars[var] = marker

    def cmd_fetchcontent_declare(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        items = [it.text for it in self.expand(cmd.args, scope, ctx, cmd)]
        if items:
            self.fetch_declared(items[0], scope, _url(items), cmd, ctx)

    cmd_externalproject_add = cmd_fetchcontent_declare

    def populate(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        items = [it.text for it in self.expand(cmd.args, scope, ctx, cmd)]
        names = items if cmd.name == "fetchcontent_makeavailable" else items[:1]
        for name in names:
            if name not in self.fetches:
                self.fetch_declared(name, scope, _url(items), cmd, ctx)
            else:
                self.fetch_conds.setdefault(name, []).append(self.conds(cmd, ctx))
            self.fetches[name]["ranges"].append(LineRange(ctx.file, cmd.start_line,
                                                          cmd.end_line))
            if cmd.name == "fetchcontent_makeavailable":
                self.fetches[name]["available"] = True
            if "SOURCE_DIR" in items[1:-1] and cmd.name == "fetchcontent_getproperties":
                var = items[items.index("SOURCE_DIR") + 1]
                scope.vars[var] = (Item("@fetch:" + name, "", ctx.file, cmd.start_line, ()),)

    # -- targets -----------------------------------------------------------------------------
    def add_target(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        items = self.expand(cmd.args, scope, ctx, cmd)
        if not items:
            return
        texts = [it.text for it in items]
        if "ALIAS" in texts or "IMPORTED" in texts:
            return
        sources: list[Item] = []
        if cmd.name != "add_custom_target":
            rest = iter(items[1:])
            for it in rest:
                if it.text == "USE_SABI":
                    next(rest, None)
                elif it.text == "OPTIONS" and cmd.name.startswith("cuda_"):
                    break
                elif it.text not in _TARGET_KEYWORDS:
                    sources.append(it)
        target = Target(items[0].text, cmd.name, ctx.file, cmd.start_line, cmd.end_line, [],
                         list(scope.include_dirs), self.conds(cmd, ctx), scope.source_dir,
                         ctx.frame)
        if ctx.frame is not None:
            ctx.frame.targets.add(target.name)
            target.variables.extend(v for a in ctx.frame.args for v in _VAR_NAME.findall(a))
        else:
            target.variables.extend(v for a in cmd.args for v in _VAR_NAME.findall(a.value))
        self.add_sources(target, sources)
        self.targets.append(target)

    def add_sources(self, target: Target, items: list[Item]) -> None:
        for it in items:
            path, fetch, reason = self.resolve(it.text, target.source_dir)
            if path is not None and path not in self.files:
                path, reason = None, f"no such file in the repository: {path}"
            if path is None and fetch is None:
                self.unres(it.file, it.line, it.raw or it.text,
                           f"source of {target.name}: {reason}")
            target.sources.append(SourceRef(path, it.raw or it.text, it.file, it.line, fetch,
                                            it.conds))

    def configure(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx,
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
        # inside a function body the command serves every call: never one target's range
        span = LineRange(ctx.file, cmd.start_line, cmd.end_line) if ctx.frame is None else None
        for name in names:
            self.configs.setdefault(name, []).append((span, texts))
            if ctx.frame is None:
                self.target_vars.setdefault(name, []).extend(
                    v for a in cmd.args for v in _VAR_NAME.findall(a.value))
        # a command under a false condition (with the forced options) never runs: the links
        # and definitions of a skipped same-named definition (the CPU `_C`, made by the same
        # function as the CUDA one) are not the built target's
        runs = not is_false(self.conds(cmd, ctx), self.forced)
        if names and runs and cmd.name == "target_compile_definitions":
            self.definitions.setdefault(names[0], []).extend(
                t.removeprefix("-D") for t in texts[1:] if t not in _SCOPE_KEYWORDS)
        if names and runs and cmd.name == "target_link_libraries":
            self.links.setdefault(names[0], []).extend(
                t for t in texts[1:] if t not in _LINK_KEYWORDS)
        elif names and runs and cmd.name == "add_dependencies":
            self.depends.setdefault(names[0], []).extend(texts[1:])
        for name in names[:1]:
            self.depends.setdefault(name, []).extend(
                m.group(1) for t in texts[1:] for m in _TARGET_GENEX.finditer(t))
        if cmd.name in ("target_sources", "target_include_directories"):
            for target in self.targets:
                if names and target.name == names[0]:
                    rest = [it for it in items[1:] if it.text not in _SCOPE_KEYWORDS]
                    if cmd.name == "target_sources":
                        self.add_sources(target, rest)
                    else:
                        target.include_items.extend(rest)

    def cmd_set_property(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
        texts = [a.value for a in cmd.args]
        if texts[:1] == ["TARGET"]:
            names = []
            for t in texts[1:]:
                if t in ("APPEND", "APPEND_STRING", "PROPERTY"):
                    break
                names.append(self.expand_str(t, scope, ctx))
            self.configure(cmd, scope, ctx, names)

    def cmd_install(self, cmd: CMakeCommand, scope: Scope, ctx: Ctx) -> None:
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
    # -- result ------------------------------------------------------------------------------
    def result(self) -> CMakeProject:
        site_safe: dict[LineRange, bool] = {}
        site_why: dict[LineRange, str] = {}
        for f in self.frames:  # a call evaluated several times (loops): every time safe
            site_safe[f.call_site] = site_safe.get(f.call_site, True) and f.safe
            if not f.safe:
                site_why.setdefault(f.call_site, f.why)
        targets = []
        for t in self.targets:
            configs = self.configs.get(t.name, [])
            include_dirs: list[str] = []
            for it in t.include_items:
                path, fetch, reason = self.resolve(it.text, t.source_dir)
                if path is not None:
                    include_dirs.append(path)
                elif fetch is not None:
                    include_dirs.append(unwrap(it.text))
                else:
                    include_dirs.append(it.raw or it.text)
                    self.unres(it.file, it.line, it.raw or it.text,
                               f"include directory of {t.name}: {reason}")
            fetches = {s.fetch for s in t.sources if s.fetch}
            fetches |= {m.group(1) for d in include_dirs for m in FETCH.finditer(d)}
            fetches |= {m.group(1) for _span, texts in configs for x in texts
                        for m in FETCH.finditer(x)}
            call_site = None
            if t.frame is not None:
                call_site = t.frame.call_site if site_safe[t.frame.call_site] else None
                if call_site is None:
                    self.unres(t.file, t.start_line, t.name,
                               f"target created in {t.frame.function}() called at "
                               f"{t.frame.call_site.file}:{t.frame.call_site.start_line}; the "
                               f"call cannot be removed alone: {site_why[t.frame.call_site]}")
            variables = [*t.variables, *self.target_vars.get(t.name, [])]
            sources = tuple(dataclasses.replace(s, off=True)
                            if is_false(s.conditions, self.forced) else s for s in t.sources)
            targets.append(CMakeTarget(
                t.name, t.kind, t.file, t.start_line, t.end_line, sources,
                tuple(dict.fromkeys(include_dirs)), tuple(sorted(fetches)),
                tuple(span for span, _texts in configs if span is not None),
                self.installs.get(t.name), t.conditions,
                tuple(dict.fromkeys(self.links.get(t.name, []))),
                tuple(dict.fromkeys(self.depends.get(t.name, []))),
                tuple(dict.fromkeys(variables)),
                t.frame.function if t.frame is not None else None, call_site,
                self.off_reason([t.conditions]),
                tuple(dict.fromkeys(self.definitions.get(t.name, []))),
                target_archs(texts for _span, texts in configs)))
        repos = tuple(FetchRepo(f["name"], f["file"], f["start"], f["end"], f["url"],
                                tuple(f["ranges"]), f["available"], tuple(f["declares"]),
                                self.off_reason(self.fetch_conds.get(f["name"], [])))
                      for f in self.fetches.values())
        unresolved = tuple(Unresolved(*key) for key in self.unresolved)
        return CMakeProject(tuple(targets), repos, tuple(self.options), tuple(self.includes),
                            unresolved, tuple(self.problems), self.off_blocks(),
                            tuple(sorted(self.forced_options.items())))

    # -- forced options ----------------------------------------------------------------------
    def off_reason(self, places: list[tuple[str, ...]]) -> str | None:
        """Why none of ``places`` (the conditions of each command) runs: one of each one's
        conditions is false with the forced options. None when one may run (or no place)."""
        if not self.forced or not places:
            return None
        falses = [is_false(conds, self.forced) for conds in places]
        if any(f is None for f in falses):
            return None
        return self.describe([f for f in falses if f is not None])

    def describe(self, falses: list[str]) -> str:
        conds = list(dict.fromkeys(falses))
        names = list(dict.fromkeys(n for c in conds for n in condition_options(c, self.forced)))
        forced = ", ".join(f"{n}={self.forced[n]}" for n in names)
        return (" and ".join(f"if({c})" for c in conds) + " is false"
                + (f" with {forced} forced" if forced else ""))

    def off_blocks(self) -> tuple[OffBlock, ...]:
        """``if()`` statements (in the files evaluated) whose every command sits under a
        condition of the statement's own that is false with the forced options."""
        if not self.forced:
            return ()
        out: list[OffBlock] = []
        for path in self.ran:
            for head, end, inner in if_statements(self.facts[path].commands):
                outer = len(head.conditions)
                body = [c for c in inner if c.name not in _CONTROL]
                falses = [is_false(c.conditions[outer:], self.forced) for c in body]
                if not body or any(f is None for f in falses):
                    continue
                conds = [f for f in falses if f is not None]
                names = tuple(dict.fromkeys(n for c in conds
                                            for n in condition_options(c, self.forced)))
                out.append(OffBlock(path, head.start_line, end.end_line, self.describe(conds),
                                    names))
        return tuple(sorted(out, key=lambda b: (b.file, b.start_line, -b.end_line)))


def if_statements(cmds: tuple[CMakeCommand, ...] | list[CMakeCommand]
                  ) -> list[tuple[CMakeCommand, CMakeCommand, list[CMakeCommand]]]:
    """Every ``if()``...``endif()`` statement (nested ones too) with all the commands between,
    innermost first."""
    out = []
    stack: list[tuple[CMakeCommand, list[CMakeCommand]]] = []
    for c in cmds:
        if c.name == "if":
            stack.append((c, []))
        elif c.name == "endif" and stack:
            head, inner = stack.pop()
            out.append((head, c, inner))
            if stack:
                stack[-1][1].extend([head, *inner, c])
        elif stack:
            stack[-1][1].append(c)
    return out

def _url(items: list[str]) -> str | None:
    for key in ("GIT_REPOSITORY", "URL"):
        if key in items[:-1]:
            return items[items.index(key) + 1]
    return None
