"""References that resolved in the original tree and no longer do in the pruned one.

    python bench/unresolved_refs.py ORIGINAL PRUNED [--json OUT] [--jobs N]

An oracle independent of depgraph's analysis: only the file list and the Python source roots
come from depgraph's discovery (``analyzer.discover.walk``); Python is read with ``ast``, CMake
with regular expressions over comment-stripped text.

Python: every ``import``/``from ... import ...`` statement of every Python file of PRUNED,
wherever it is (module level, functions, methods, ``if TYPE_CHECKING:``, ``try``), is resolved
from that file's place in both trees against the tree's own files: the source roots (deepest
first, like ``sys.path``; a file outside any package also searches its own folder, as a script
does), relative imports from the file's package, ``import a.b.c`` needing ``a``, ``a.b`` and
``a.b.c`` (a ``.py`` file, a package with ``__init__.py``, or a namespace folder), ``from m
import n`` needing ``n`` to be a submodule of ``m`` or a name bound at ``m``'s module level
(definitions, assignments, imports, loop/``with``/``except`` targets, also inside module-level
``if``/``try``/``for``/``with`` blocks, ``global`` names; ``from x import *``, a module-level
``__getattr__`` or writes through ``globals()`` bind any name). A reference that resolves in
ORIGINAL and not in PRUNED is a regression ("typing-only" under exactly ``if TYPE_CHECKING:`` or
``if typing.TYPE_CHECKING:``, else "runtime"; an import in a ``try`` whose handler catches
``ImportError`` is marked so): third-party imports and compiled extensions
resolve in neither tree and are never reported. A file that parsed in ORIGINAL and no longer
parses is a runtime regression too.

CMake: in every CMake file of PRUNED, a ``${VAR}`` read of a variable some CMake file of
ORIGINAL sets (``set``, ``option``, ``list``, ``file(GLOB ...)``, ``string``, ``math``,
``foreach``, ``function`` parameters, ``find_*``, ``get_*``, ``execute_process`` outputs, a
call of a function whose body does ``set(${PARAM} ... PARENT_SCOPE)``, ``FetchContent_*(name)``
-> ``name_SOURCE_DIR``/``_BINARY_DIR``/``_POPULATED``, ``find_package(P)`` -> ``P_*``,
``cmake_parse_arguments(PFX ...)`` -> ``PFX_*``, ...) and no CMake file of PRUNED sets any more
(CMake's own ``CMAKE_*``/``PROJECT_*`` variables excepted: the build has them anyway); and a
target named by ``target_*(T``, ``install(TARGETS``, ``add_dependencies``,
``set_target_properties``, ``set_property(TARGET``, ``get_target_property``, a
``target_link_libraries`` item or ``$<TARGET_...:T>`` that ``add_library``/
``Python_add_library``/``add_executable``/``pybind11_add_module`` (and the ``cuda_add_*``,
``add_custom_target`` forms, and functions creating ``${PARAM}``) defined in ORIGINAL and
nothing defines in PRUNED; and an ``include(path)``/``add_subdirectory(dir)`` naming (by a
literal path, or one from ``${CMAKE_CURRENT_LIST_DIR}`` and the like) a file ORIGINAL has and
PRUNED does not.

Prints one line per regression, ``path:line: <kind>: <what>`` (kind ``runtime``,
``typing-only`` or ``cmake``), then ``unresolved refs: N files checked, R runtime, T
typing-only, C cmake``. Exit 1 when R+T+C > 0, else 0; 2 on bad input.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import concurrent.futures
import json
import os
import posixpath
import re
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the depgraph of this checkout (for analyzer.discover.walk)

ANY = None  # bindings of a module that may bind any name (``import *``, ``__getattr__``)

# (line, level, module or None, names (empty for ``import``), typing-only, in a ``try`` whose
# handler catches ImportError)
ImportRow = tuple[int, int, str | None, tuple[str, ...], bool, bool]


@dataclass(frozen=True)
class Summary:
    """What one Python file says: its imports, and the names its module level binds."""

    parses: bool
    imports: tuple[ImportRow, ...] = ()
    bindings: frozenset[str] | None = ANY  # ANY when unknown or any name may be bound
    error: tuple[int, str] = (0, "")  # where and why it does not parse


# --- Python: one file ------------------------------------------------------------------------

def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
            and isinstance(test.value, ast.Name) and test.value.id == "typing")


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(n is None or (isinstance(n, ast.Name | ast.Attribute) and
                             (n.id if isinstance(n, ast.Name) else n.attr) in _IMPORT_ERRORS)
               for n in names)


_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def _target_names(target: ast.expr | None) -> Iterator[str]:
    """Names an assignment target binds (``a``, ``a, (b, *c)``; not ``x.a`` nor ``x[a]``)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def _writes_globals(node: ast.AST) -> bool:
    """``globals()[name] = ...`` or ``globals().update(...)`` anywhere in ``node``."""
    for sub in ast.walk(node):
        value = sub.value if isinstance(sub, ast.Subscript | ast.Attribute) else None
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id == "globals"):
            continue
        if isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Store):
            return True
        if isinstance(sub, ast.Attribute) and sub.attr in ("update", "setdefault"):
            return True
    return False


_BLOCKS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.Try, ast.TryStar,
           ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Match)


def _own_expressions(node: ast.stmt) -> list[ast.AST]:
    """The expressions a statement evaluates itself (a block's header, not its body)."""
    if isinstance(node, ast.If | ast.While):
        return [node.test]
    if isinstance(node, ast.For | ast.AsyncFor):
        return [node.iter]
    if isinstance(node, ast.With | ast.AsyncWith):
        return [item.context_expr for item in node.items]
    if isinstance(node, ast.Match):
        return [node.subject]
    return [] if isinstance(node, _BLOCKS) else [node]


def summarize(source: bytes) -> Summary:
    """Imports anywhere in the file and the names bound at module level. Only statements are
    walked (imports and bindings are statements); expressions are read for a walrus at module
    level or a write through ``globals()`` only when the source spells one."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return Summary(False, error=(exc.lineno or 0, str(exc.msg)))
    except (ValueError, RecursionError, MemoryError) as exc:
        return Summary(False, error=(0, type(exc).__name__))
    imports: list[ImportRow] = []
    bound: set[str] = set()
    any_name = b"globals()" in source and _writes_globals(tree)
    walrus = b":=" in source
    # (statement, at module scope, under `if TYPE_CHECKING:`, in a try catching ImportError)
    stack: list[tuple[ast.stmt, bool, bool, bool]] = [(st, True, False, False)
                                                       for st in tree.body]

    def push(body: list[ast.stmt], module_scope: bool, typing_only: bool, guarded: bool
             ) -> None:
        stack.extend((st, module_scope, typing_only, guarded) for st in body)

    while stack:
        node, module_scope, typing_only, guarded = stack.pop()
        names: Iterable[str] = ()
        if isinstance(node, ast.Import):
            for alias in node.names:
                imports.append((node.lineno, 0, alias.name, (), typing_only, guarded))
            names = (a.asname or a.name.partition(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            imports.append((node.lineno, node.level, node.module,
                            tuple(a.name for a in node.names), typing_only, guarded))
            any_name |= module_scope and any(a.name == "*" for a in node.names)
            names = (a.asname or a.name for a in node.names if a.name != "*")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = (node.name,)
            any_name |= module_scope and node.name == "__getattr__" and \
                not isinstance(node, ast.ClassDef)
            push(node.body, False, typing_only, guarded)
        elif isinstance(node, ast.If):
            push(node.body, module_scope, typing_only or _is_type_checking(node.test), guarded)
            push(node.orelse, module_scope, typing_only, guarded)
        elif isinstance(node, ast.Try | ast.TryStar):
            catches = any(map(_catches_import_error, node.handlers))
            push(node.body, module_scope, typing_only, guarded or catches)
            for handler in node.handlers:
                if module_scope and handler.name:
                    bound.add(handler.name)
                push(handler.body, module_scope, typing_only, guarded)
            push(node.orelse, module_scope, typing_only, guarded)
            push(node.finalbody, module_scope, typing_only, guarded)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.While):
            if not isinstance(node, ast.While):
                names = _target_names(node.target)
            push(node.body, module_scope, typing_only, guarded)
            push(node.orelse, module_scope, typing_only, guarded)
        elif isinstance(node, ast.With | ast.AsyncWith):
            names = [n for item in node.items for n in _target_names(item.optional_vars)]
            push(node.body, module_scope, typing_only, guarded)
        elif isinstance(node, ast.Match):
            for case in node.cases:
                if module_scope:
                    bound.update(n for p in ast.walk(case.pattern)
                                 for n in (getattr(p, "name", None), getattr(p, "rest", None))
                                 if isinstance(n, str))
                push(case.body, module_scope, typing_only, guarded)
        elif isinstance(node, ast.Assign):
            names = [n for target in node.targets for n in _target_names(target)]
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            names = _target_names(node.target)
        elif isinstance(node, ast.Global):
            bound.update(node.names)  # assigned in a function, bound at module level once run
        if module_scope:
            bound.update(names)
            if walrus:
                bound.update(sub.target.id for part in _own_expressions(node)
                             for sub in ast.walk(part) if isinstance(sub, ast.NamedExpr))
    any_name |= "__getattr__" in bound
    imports.sort()
    return Summary(True, tuple(imports), ANY if any_name else frozenset(bound))


def _summarize_file(path: str) -> Summary:
    try:
        with open(path, "rb") as fh:
            return summarize(fh.read())
    except OSError as exc:
        return Summary(False, error=(0, str(exc)))


# --- Python: one tree --------------------------------------------------------------------------

@dataclass
class Module:
    """A resolved module: its source (None for a namespace package) and where its submodules
    are looked up (empty for a plain ``.py`` module)."""

    source: str | None
    search: tuple[str, ...]


@dataclass
class PyTree:
    root: Path
    roots: tuple[str, ...]  # relative source roots, deepest first (the order of sys.path)
    files: set[str]  # relative paths of the Python files
    dirs: set[str] = field(default_factory=set)  # every folder holding a Python file below it
    summaries: dict[str, Summary] = field(default_factory=dict)
    _resolved: dict[tuple[tuple[str, ...], str], Module | None] = field(default_factory=dict)
    _in_package: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> tuple[PyTree, list[str]]:
        """The tree's Python side, and its CMake files (relative paths)."""
        from analyzer.discover.walk import discover

        found = discover(path)
        files = {f.path for f in found.files if f.language == "python"}
        cmake = sorted(f.path for f in found.files if f.language == "cmake")
        roots = tuple(sorted(found.python_roots, key=lambda r: (-r.count("/") - bool(r), r)))
        tree = cls(found.root, roots, files)
        for f in files:
            d = posixpath.dirname(f)
            while d and d not in tree.dirs:
                tree.dirs.add(d)
                d = posixpath.dirname(d)
        return tree, cmake

    def summary(self, rel: str) -> Summary:
        found = self.summaries.get(rel)
        if found is None:
            found = self.summaries[rel] = _summarize_file(str(self.root / rel))
        return found

    def _step(self, search: tuple[str, ...], name: str) -> Module | None:
        """``name`` in the folders ``search``, as the path-based finder does: in order, a
        regular package or a module wins at once; folders without ``__init__.py`` are
        namespace portions, used when nothing else is found."""
        portions: list[str] = []
        for base in search:
            path = f"{base}/{name}" if base else name
            init = path + "/__init__.py"
            if init in self.files:
                return Module(init, (path,))
            if path + ".py" in self.files:
                return Module(path + ".py", ())
            if path in self.dirs:
                portions.append(path)
        return Module(None, tuple(portions)) if portions else None

    def resolve(self, search: tuple[str, ...], dotted: str) -> Module | None:
        """The module ``dotted`` (every prefix must exist) searched from the folders
        ``search``; None when some part is missing."""
        key = (search, dotted)
        if key in self._resolved:
            return self._resolved[key]
        head, _, last = dotted.rpartition(".")
        if head:
            parent = self.resolve(search, head)
            found = self._step(parent.search, last) if parent is not None else None
        else:
            found = self._step(search, last)
        self._resolved[key] = found
        return found

    def search_path(self, rel: str) -> tuple[str, ...]:
        """sys.path for absolute imports of file ``rel``: its own folder first when it is not
        in a package (a script), then the source roots."""
        folder = posixpath.dirname(rel)
        own = () if self.in_package(folder) else (folder,)
        return own + tuple(r for r in self.roots if r not in own)

    def in_package(self, folder: str) -> bool:
        """Whether ``folder`` or a folder above it holds an ``__init__.py``."""
        found = self._in_package.get(folder)
        if found is None:
            found = bool(folder) and (f"{folder}/__init__.py" in self.files
                                      or self.in_package(posixpath.dirname(folder)))
            self._in_package[folder] = found
        return found

    def package_dir(self, rel: str, level: int) -> str | None:
        """The folder a relative import of ``level`` dots in file ``rel`` starts from."""
        folder = posixpath.dirname(rel)
        for _ in range(level - 1):
            if not folder:
                return None
            folder = posixpath.dirname(folder)
        return folder

    def binds(self, module: Module, name: str) -> bool:
        if self._step(module.search, name) is not None:
            return True  # a submodule
        if module.source is None:
            return False  # a namespace package binds nothing else
        bindings = self.summary(module.source).bindings
        return bindings is ANY or name in bindings

    def check(self, rel: str, row: ImportRow) -> list[tuple[str, str]]:
        """(what, why) for each reference of one import statement that does not resolve."""
        _, level, module, names, _, _ = row
        if level:
            base = self.package_dir(rel, level)
            if base is None:
                return [(self.describe(row, n), "beyond the top-level package")
                        for n in names]
            shown = "." * level + (module or "")
            if module:
                target = self.resolve((base,), module)
            else:
                init = f"{base}/__init__.py" if base else "__init__.py"
                target = Module(init if init in self.files else None, (base,))
        else:
            shown = module or ""
            target = self.resolve(self.search_path(rel), shown)
        if not names:  # import a.b.c
            return [] if target is not None else [(f"import {shown}", "no such module")]
        if target is None:
            return [(f"from {shown} import {n}", f"no module {shown}") for n in names]
        out = []
        for n in names:
            if n != "*" and not self.binds(target, n):
                where = target.source or "namespace package"
                out.append((f"from {shown} import {n}", f"'{n}' is not bound in {where}"))
        return out

    def describe(self, row: ImportRow, name: str) -> str:
        _, level, module, names, _, _ = row
        shown = "." * level + (module or "")
        return f"from {shown} import {name}" if names else f"import {shown}"


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    kind: str  # runtime | typing-only | cmake
    what: str

    def text(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.what}"


def summarize_all(tree: PyTree, jobs: int) -> None:
    """Summaries of every Python file of ``tree``, in ``jobs`` processes."""
    rels = sorted(tree.files)
    paths = [str(tree.root / rel) for rel in rels]
    if jobs <= 1 or len(paths) < 200:
        results: Iterable[Summary] = map(_summarize_file, paths)
        tree.summaries.update(zip(rels, results, strict=True))
        return
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
        results = pool.map(_summarize_file, paths, chunksize=64)
        tree.summaries.update(zip(rels, results, strict=True))


def python_regressions(original: PyTree, pruned: PyTree) -> list[Finding]:
    out: list[Finding] = []
    for rel in sorted(pruned.files):
        after = pruned.summary(rel)
        if not after.parses:
            if rel in original.files and original.summary(rel).parses:
                line, why = after.error
                out.append(Finding(rel, line, "runtime", f"no longer parses: {why}"))
            continue
        seen: dict[tuple[str, str], Finding] = {}
        more: dict[tuple[str, str], list[int]] = {}
        for row in after.imports:
            failing = pruned.check(rel, row)
            if not failing:
                continue
            before = dict(original.check(rel, row))
            kind = "typing-only" if row[4] else "runtime"
            for what, why in failing:
                if what in before:
                    continue  # did not resolve in the original either
                key = (what, kind)
                if key in seen:  # one reference, several lines: listed once
                    more[key].append(row[0])
                else:
                    guard = " [in a try catching ImportError]" if row[5] else ""
                    seen[key] = Finding(rel, row[0], kind, f"{what}: {why}{guard}")
                    more[key] = []
        out.extend(also(f, more[key]) for key, f in seen.items())
    return out


def also(finding: Finding, lines: list[int]) -> Finding:
    """``finding`` with the other lines of the same reference noted."""
    rest = sorted(set(lines) - {finding.line})
    if not rest:
        return finding
    return Finding(finding.path, finding.line, finding.kind,
                   finding.what + " (also " + ", ".join(f":{n}" for n in rest) + ")")


# --- CMake -------------------------------------------------------------------------------------

_COMMAND = re.compile(r"(?<![\w$])([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")
_READ = re.compile(r"(?<![A-Za-z0-9_])\$\{([A-Za-z0-9_./+-]+)\}")
_BRACKET_OPEN = re.compile(r"\[(=*)\[")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.+-]*\Z")
_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([^\s"()]+)')
_GENEX_TARGET = re.compile(r"\$<TARGET_[A-Z_]+:([A-Za-z0-9_.+-]+)>")

_TARGET_DEFS = {"add_library", "python_add_library", "add_executable", "pybind11_add_module",
                "cuda_add_library", "cuda_add_executable", "add_custom_target"}
_INSTALL_KEYWORDS = {"EXPORT", "RUNTIME_DEPENDENCIES", "RUNTIME_DEPENDENCY_SET", "ARCHIVE",
                     "LIBRARY", "RUNTIME", "OBJECTS", "FRAMEWORK", "BUNDLE", "PRIVATE_HEADER",
                     "PUBLIC_HEADER", "RESOURCE", "FILE_SET", "CXX_MODULES_BMI", "DESTINATION",
                     "PERMISSIONS", "CONFIGURATIONS", "COMPONENT", "NAMELINK_COMPONENT",
                     "OPTIONAL", "EXCLUDE_FROM_ALL", "NAMELINK_ONLY", "NAMELINK_SKIP",
                     "INCLUDES"}
_LINK_KEYWORDS = {"PRIVATE", "PUBLIC", "INTERFACE", "LINK_PRIVATE", "LINK_PUBLIC",
                  "LINK_INTERFACE_LIBRARIES", "debug", "optimized", "general"}
_FILE_SECOND = {"GLOB", "GLOB_RECURSE", "RELATIVE_PATH"}
_FILE_THIRD = {"READ", "STRINGS", "MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512",
               "TIMESTAMP", "SIZE", "READ_SYMLINK", "REAL_PATH", "TO_CMAKE_PATH",
               "TO_NATIVE_PATH"}
_STRING_SECOND = {"APPEND", "PREPEND", "CONCAT", "MD5", "SHA1", "SHA224", "SHA256", "SHA384",
                  "SHA512", "SHA3_224", "SHA3_256", "SHA3_384", "SHA3_512", "TIMESTAMP", "UUID",
                  "JSON"}
_OUTPUT_KEYWORDS = {"OUTPUT_VARIABLE", "RESULT_VARIABLE", "ERROR_VARIABLE", "RESULTS_VARIABLE",
                    "COMPILE_OUTPUT_VARIABLE", "RUN_OUTPUT_VARIABLE", "RESULT_VAR"}


def strip_comments(text: str) -> str:
    """``text`` with ``#`` comments and ``#[[...]]`` bracket comments blanked (newlines kept,
    so offsets and line numbers stay); quoted strings and bracket arguments are left alone."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif c == "[" and (m := _BRACKET_OPEN.match(text, i)):
            end = text.find("]" + m.group(1) + "]", m.end())
            i = n if end < 0 else end + len(m.group(0))
        elif c == "#":
            m = _BRACKET_OPEN.match(text, i + 1)
            if m:
                end = text.find("]" + m.group(1) + "]", m.end())
                stop = n if end < 0 else end + len(m.group(0))
            else:
                stop = text.find("\n", i)
                stop = n if stop < 0 else stop
            for j in range(i, stop):
                if out[j] != "\n":
                    out[j] = " "
            i = stop
        else:
            i += 1
    return "".join(out)


def commands(text: str) -> Iterator[tuple[str, int, int, str]]:
    """(lower-cased command, offset of its name, offset after its ``)``, argument text) of
    each command of comment-stripped ``text``."""
    pos = 0
    while True:
        m = _COMMAND.search(text, pos)
        if m is None:
            return
        depth, i, n = 1, m.end(), len(text)
        while i < n and depth:
            c = text[i]
            if c == '"':
                i += 1
                while i < n and text[i] != '"':
                    i += 2 if text[i] == "\\" else 1
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            i += 1
        yield m.group(1).lower(), m.start(), i, text[m.end():i - 1]
        pos = i


def tokens(args: str) -> list[str]:
    """Arguments of a command, quotes removed (a quoted argument keeps its spaces)."""
    return [m.group(1) if m.group(1) is not None else m.group(2)
            for m in _TOKEN.finditer(args)]


def _name(token: str) -> str | None:
    return token if _IDENT.match(token) else None


@dataclass
class CMakeFacts:
    sets: dict[str, tuple[str, int]] = field(default_factory=dict)  # var -> first setter
    prefixes: dict[str, tuple[str, int]] = field(default_factory=dict)  # P_ -> first setter
    targets: dict[str, tuple[str, int]] = field(default_factory=dict)  # target -> definition
    reads: list[tuple[str, int, str]] = field(default_factory=list)  # (path, line, var)
    target_refs: list[tuple[str, int, str]] = field(default_factory=list)
    files: list[tuple[str, int, str, str]] = field(default_factory=list)  # (path, line, cmd, file)

    def setter(self, var: str) -> tuple[str, int] | None:
        if var in self.sets:
            return self.sets[var]
        for prefix, where in self.prefixes.items():
            if var.startswith(prefix):
                return where
        return None


def variables_set(cmd: str, args: list[str]) -> tuple[list[str], list[str]]:
    """(variables, variable prefixes) a command sets."""
    if not args:
        return [], []
    first = args[0]
    sub = first.upper()
    names: list[str | None] = []
    prefixes: list[str] = []
    if cmd in ("set", "option", "separate_arguments", "get_filename_component",
               "get_target_property", "get_property", "get_directory_property",
               "get_cmake_property", "get_source_file_property", "get_test_property",
               "find_path", "find_library", "find_program", "find_file", "foreach",
               "try_compile", "try_run", "site_name", "aux_source_directory",
               "cmake_host_system_information"):
        names.append(first if cmd != "aux_source_directory" else args[-1])
        if cmd == "cmake_host_system_information" and len(args) > 1:
            names.append(args[1])
    elif cmd == "list" and len(args) > 1:
        names.append(args[1])
        if sub in ("POP_BACK", "POP_FRONT"):
            names.extend(args[2:])
        elif sub in ("LENGTH", "GET", "JOIN", "SUBLIST", "FIND"):
            names.append(args[-1])
    elif cmd == "file" and len(args) > 1:
        if sub in _FILE_SECOND:
            names.append(args[1])
        elif sub in _FILE_THIRD and len(args) > 2:
            names.append(args[2])
    elif cmd == "string" and len(args) > 1:
        if sub in _STRING_SECOND:
            names.append(args[1])
        elif sub == "REGEX" and len(args) > 3:  # REGEX MATCH re out / REPLACE re new out
            out_at = 4 if args[1].upper() == "REPLACE" else 3
            names.append(args[out_at] if len(args) > out_at else None)
        elif sub in ("REPLACE", "FIND", "REPEAT") and len(args) > 3:
            names.append(args[3])
        elif sub in ("SUBSTRING", "COMPARE") and len(args) > 4:
            names.append(args[4])
        elif sub == "JOIN" and len(args) > 2:
            names.append(args[2])
        else:
            names.append(args[-1])
    elif cmd == "math" and len(args) > 1:
        names.append(args[1])
    elif cmd in ("function", "macro"):
        names.extend(args[1:])
    elif cmd == "cmake_parse_arguments":
        prefix = args[2] if sub == "PARSE_ARGV" and len(args) > 2 else first
        prefixes.append(prefix + "_")
    elif cmd == "find_package":
        prefixes.extend({first + "_", first.upper() + "_"})
    elif cmd == "project":
        names.extend(f"{first}_{s}" for s in ("SOURCE_DIR", "BINARY_DIR", "VERSION",
                                              "IS_TOP_LEVEL"))
    elif cmd.startswith("fetchcontent_") and cmd != "fetchcontent_makeavailable":
        for n in {first, first.lower()}:
            names.extend(f"{n}_{s}" for s in ("SOURCE_DIR", "BINARY_DIR", "POPULATED"))
        for key in ("SOURCE_DIR", "BINARY_DIR", "POPULATED"):
            if cmd == "fetchcontent_getproperties" and key in args[1:-1]:
                names.append(args[args.index(key) + 1])
    elif cmd == "fetchcontent_makeavailable":
        for a in args:
            for n in {a, a.lower()}:
                names.extend(f"{n}_{s}" for s in ("SOURCE_DIR", "BINARY_DIR", "POPULATED"))
    elif cmd == "externalproject_get_property":
        names.extend(args[1:])
    elif cmd.startswith("check_") or cmd == "cmake_path":
        names.append(args[-1])
    if cmd in ("execute_process", "include", "try_compile", "try_run", "file"):
        names.extend(args[i + 1] for i, a in enumerate(args[:-1]) if a in _OUTPUT_KEYWORDS)
    if cmd == "file" and sub == "DOWNLOAD":
        names.extend(args[i + 1] for i, a in enumerate(args[:-1]) if a in ("STATUS", "LOG"))
    return [n for n in names if n], prefixes  # names may be ${...}: callers filter


def target_refs(cmd: str, args: list[str]) -> list[str]:
    """Target names a command requires to exist."""
    out: list[str] = []
    if cmd.startswith("target_") and args:
        out.append(args[0])
        if cmd == "target_link_libraries":
            out.extend(a for a in args[1:] if a not in _LINK_KEYWORDS)
    elif cmd == "install" and args and args[0] == "TARGETS":
        for a in args[1:]:
            if a in _INSTALL_KEYWORDS:
                break
            out.append(a)
    elif cmd == "add_dependencies":
        out.extend(args)
    elif cmd == "set_target_properties":
        for a in args:
            if a == "PROPERTIES":
                break
            out.append(a)
    elif cmd == "set_property" and args and args[0] == "TARGET":
        for a in args[1:]:
            if a in ("APPEND", "APPEND_STRING", "PROPERTY"):
                break
            out.append(a)
    elif cmd == "get_target_property" and len(args) > 1:
        out.append(args[1])
    for a in args:
        out.extend(_GENEX_TARGET.findall(a))
    return [t for t in out if _name(t)]


# CMake's own variables: the build has them whatever the project sets (CMAKE_BUILD_TYPE)
_BUILTIN = re.compile(r"(CMAKE|PROJECT)_")
_PARAM = re.compile(r"\$\{([A-Za-z0-9_]+)\}\Z")
Command = tuple[str, int, str, list[str]]  # (path, line, lower-cased command, arguments)


def read_commands(root: Path, files: list[str]) -> tuple[list[Command], list[tuple[str, int, str]]]:
    """Every command of the CMake ``files``, and every ``${VAR}`` read (path, line, VAR)."""
    out: list[Command] = []
    reads: list[tuple[str, int, str]] = []
    for rel in files:
        try:
            text = strip_comments((root / rel).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        starts = [0]
        starts.extend(m.end() for m in re.finditer("\n", text))
        reads.extend((rel, bisect.bisect_right(starts, m.start()), m.group(1))
                     for m in _READ.finditer(text))
        out.extend((rel, bisect.bisect_right(starts, start), cmd, tokens(arg_text))
                   for cmd, start, _, arg_text in commands(text))
    return out, reads


def user_commands(cmds: list[Command]) -> dict[str, tuple[set[int], set[int]]]:
    """function/macro name -> (indexes of the arguments a call sets as variables, indexes of
    those it defines as targets): ``set(${OUT} ... PARENT_SCOPE)``,
    ``Python_add_library(${MOD_NAME} ...)`` in the body, OUT/MOD_NAME a parameter."""
    found: dict[str, tuple[set[int], set[int]]] = {}
    stack: list[tuple[str, list[str]]] = []
    for _, _, cmd, args in cmds:
        if cmd in ("function", "macro") and args:
            stack.append((args[0].lower(), args[1:]))
            found.setdefault(args[0].lower(), (set(), set()))
            continue
        if cmd in ("endfunction", "endmacro"):
            if stack:
                stack.pop()
            continue
        for name, params in stack:
            sets, targets = found[name]
            for var in variables_set(cmd, args)[0]:
                m = _PARAM.match(var)
                if m and m.group(1) in params:
                    sets.add(params.index(m.group(1)))
            m = _PARAM.match(args[0]) if cmd in _TARGET_DEFS and args else None
            if m and m.group(1) in params:
                targets.add(params.index(m.group(1)))
    return found


def included_file(rel: str, cmd: str, args: list[str], top: str) -> str | None:
    """The tree file an ``include(path)`` or ``add_subdirectory(dir)`` of file ``rel`` names
    (relative POSIX path), when its argument is a literal path, possibly starting with
    ``${CMAKE_CURRENT_LIST_DIR}``/``${CMAKE_CURRENT_SOURCE_DIR}`` (the file's folder) or
    ``${CMAKE_SOURCE_DIR}``/``${PROJECT_SOURCE_DIR}`` (the top CMakeLists.txt's folder)."""
    if cmd not in ("include", "add_subdirectory") or not args:
        return None
    here = posixpath.dirname(rel)
    path = args[0]
    for var, value in (("CMAKE_CURRENT_LIST_DIR", here), ("CMAKE_CURRENT_SOURCE_DIR", here),
                       ("CMAKE_SOURCE_DIR", top), ("PROJECT_SOURCE_DIR", top)):
        path = path.replace("${" + var + "}", value or ".")
    if "$" in path or path.startswith("/") or (cmd == "include" and "/" not in path
                                               and not path.endswith(".cmake")):
        return None  # a variable, an absolute path, or a module of CMAKE_MODULE_PATH
    if cmd == "add_subdirectory":
        path += "/CMakeLists.txt"
    joined = posixpath.normpath(posixpath.join(here, path))
    return None if joined.startswith("../") or joined == ".." else joined


def cmake_facts(root: Path, files: list[str]) -> CMakeFacts:
    facts = CMakeFacts()
    cmds, facts.reads = read_commands(root, files)
    users = user_commands(cmds)
    tops = sorted((f.count("/"), posixpath.dirname(f)) for f in files
                  if posixpath.basename(f) == "CMakeLists.txt")
    top = tops[0][1] if tops else ""
    for rel, line, cmd, args in cmds:
        named = included_file(rel, cmd, args, top)
        if named is not None:
            facts.files.append((rel, line, cmd, named))
        names, prefixes = variables_set(cmd, args)
        defined = [args[0]] if cmd in _TARGET_DEFS and args else []
        if cmd in users:
            sets, targets = users[cmd]
            names += [args[i] for i in sets if i < len(args)]
            defined += [args[i] for i in targets if i < len(args)]
        for n in names:
            if _name(n):
                facts.sets.setdefault(n, (rel, line))
        for p in prefixes:
            if _name(p):
                facts.prefixes.setdefault(p, (rel, line))
        for t in defined:
            if _name(t):
                facts.targets.setdefault(t, (rel, line))
        facts.target_refs.extend((rel, line, t) for t in target_refs(cmd, args))
    return facts


def cmake_regressions(original: CMakeFacts, pruned: CMakeFacts, original_root: Path,
                      pruned_root: Path) -> list[Finding]:
    """Reads of variables and names of targets only the original set or defined, files
    ``include()``d or ``add_subdirectory()``'d only the original has; one finding per file and
    name (later lines noted)."""
    found: dict[tuple[str, str], Finding] = {}
    lines: dict[tuple[str, str], list[int]] = {}
    for rel, line, cmd, named in pruned.files:
        if (original_root / named).is_file() and not (pruned_root / named).is_file():
            found[(rel, f"file {named} {line}")] = Finding(
                rel, line, "cmake", f"{cmd}() names {named}, which the original has and the "
                                    "pruned tree does not")
            lines[(rel, f"file {named} {line}")] = []
    candidates = [(rel, line, "var", var, original.setter(var), pruned.setter(var))
                  for rel, line, var in pruned.reads]
    candidates += [(rel, line, "target", t, original.targets.get(t), pruned.targets.get(t))
                   for rel, line, t in pruned.target_refs]
    for rel, line, what, name, was, now in candidates:
        if was is None or now is not None or (what == "var" and _BUILTIN.match(name)):
            continue
        key = (rel, f"{what} {name}")
        if key in found:
            lines[key].append(line)
            continue
        lines[key] = []
        text = (f"${{{name}}} is read; set in the original at {was[0]}:{was[1]}, set nowhere "
                "now" if what == "var" else
                f"target '{name}' is named; defined in the original at {was[0]}:{was[1]}, "
                "not any more")
        found[key] = Finding(rel, line, "cmake", text)
    return [also(f, lines[key]) for key, f in found.items()]


# --- main --------------------------------------------------------------------------------------

def compare(original_path: Path, pruned_path: Path, jobs: int = 1
            ) -> tuple[int, list[Finding]]:
    """(files checked, regressions sorted by path and line)."""
    original, original_cmake = PyTree.load(original_path)
    pruned, pruned_cmake = PyTree.load(pruned_path)
    summarize_all(pruned, jobs)
    # the original's files with the same bytes share the pruned tree's summaries
    for rel in pruned.files & original.files:
        try:
            same = (original.root / rel).read_bytes() == (pruned.root / rel).read_bytes()
        except OSError:
            same = False
        if same:
            original.summaries[rel] = pruned.summaries[rel]
    findings = python_regressions(original, pruned)
    findings += cmake_regressions(cmake_facts(original.root, original_cmake),
                                  cmake_facts(pruned.root, pruned_cmake),
                                  original.root, pruned.root)
    findings.sort(key=lambda f: (f.path, f.line, f.kind, f.what))
    return len(pruned.files) + len(pruned_cmake), findings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("original", type=Path)
    parser.add_argument("pruned", type=Path)
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the findings here")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N",
                        help="processes parsing the pruned tree (default: 2 or fewer cores)")
    args = parser.parse_args(argv)
    from analyzer.discover.walk import DiscoveryError

    for tree in (args.original, args.pruned):
        if not tree.is_dir():
            print(f"unresolved_refs: not a directory: {tree}", file=sys.stderr)
            return 2
    started = time.perf_counter()
    try:
        checked, findings = compare(args.original, args.pruned, args.jobs)
    except DiscoveryError as exc:
        print(f"unresolved_refs: {exc}", file=sys.stderr)
        return 2
    counts = {k: sum(1 for f in findings if f.kind == k)
              for k in ("runtime", "typing-only", "cmake")}
    for f in findings:
        print(f.text())
    print(f"unresolved refs: {checked} files checked, {counts['runtime']} runtime, "
          f"{counts['typing-only']} typing-only, {counts['cmake']} cmake")
    print(f"unresolved_refs: {time.perf_counter() - started:.1f}s", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({
            "files_checked": checked, **counts,
            "findings": [{"path": f.path, "line": f.line, "kind": f.kind, "what": f.what}
                         for f in findings],
        }, indent=1), encoding="utf-8")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
