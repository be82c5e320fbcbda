"""Discover stage: the first stage of the pipeline.

``discover(root)`` walks the tree with ``os.scandir`` and returns a :class:`Discovery`: every
Python / CUDA-C++ / CMake file (relative POSIX path, language, size), the Python source roots
(directories that act as ``sys.path`` entries), and the problems met on the way. It never reads
source files (the extract stage does); it only reads ``.gitignore``, ``.git/info/exclude``,
``pyproject.toml`` and ``setup.cfg``.

What is skipped: the default excludes (:data:`DEFAULT_EXCLUDES`, plus any directory holding a
``pyvenv.cfg``), then ``extra_excludes`` (gitignore patterns relative to the root), then
``.git/info/exclude`` and every ``.gitignore`` in the tree (each for its own subtree, deeper files
winning). ``.gitignore`` files above the scanned root are not consulted.

Symlinks resolving inside the root are followed; links leading outside the root, dangling links
and loops are reported as problems (``symlink-outside-root``, ``broken-symlink``,
``symlink-loop``), as are unreadable directories and files (``unreadable``). The walk never
raises on them.

Python source roots (rule for each ``.py`` file, see :func:`_root_of`):

0. a package packaging metadata names explicitly (``[tool.scikit-build] wheel.packages``,
   ``[tool.hatch.build.targets.wheel] packages``, ``[tool.poetry] packages``) is installed
   top-level: its parent is the root of the files in it, even inside another package's folder
   (SGLang's kernel project at ``python/sglang/kernels/aot/`` ships ``python/sgl_kernel`` as
   ``sgl_kernel``);
1. if a directory between the scanned root and the file holds an ``__init__.py``, the root is the
   parent of the *topmost* such directory, so namespace gaps (``sglang/__init__.py`` present,
   ``sglang/srt/`` without one) stay inside one package;
2. otherwise (scripts, tests, pure namespace packages) the longest *declared* root containing the
   file: ``[tool.setuptools.packages.find] where``, ``[tool.setuptools] package-dir`` ``""`` key,
   ``[tool.hatch.build.targets.wheel] packages``, ``[tool.scikit-build] wheel.packages``,
   ``[tool.maturin] python-source``, ``[tool.poetry] packages`` ``from``, ``setup.cfg``
   ``[options] package_dir`` / ``[options.packages.find] where``, and a ``src/`` directory next to
   a ``pyproject.toml`` / ``setup.py`` / ``setup.cfg``;
3. else the directory of the nearest enclosing ``pyproject.toml`` / ``setup.py`` / ``setup.cfg``;
4. else the scanned root (``""``).

Every root that received at least one file is listed in ``python_roots``; :func:`module_name`
maps a file to a dotted name through the longest root containing it.
"""

from __future__ import annotations

import configparser
import errno
import keyword
import os
import posixpath
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.discover.gitignore import PatternList, is_ignored, parse_lines
from analyzer.errors import InputError
from analyzer.model import Language, ParseProblem, SourceFile

__all__ = ["DEFAULT_EXCLUDES", "Discovery", "DiscoveryError", "discover", "language_of",
           "module_name"]

DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git/", ".hg/", ".svn/", "__pycache__/", ".venv/", "venv/", "node_modules/", "build/",
    "dist/", "*.egg-info/", ".tox/", ".nox/", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/",
    "site-packages/", "depgraph-out/",
)  # gitignore syntax; "env/" and any other virtualenv are caught by their pyvenv.cfg

_CUDA_SUFFIXES = frozenset({".cu", ".cuh", ".cc", ".cpp", ".cxx", ".c", ".h", ".hpp", ".hh",
                            ".inl"})
_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


class DiscoveryError(InputError):
    """The scanned path cannot be walked at all (missing, not a directory, unreadable)."""


@dataclass(frozen=True)
class Discovery:
    root: Path  # absolute, resolved scanned root
    files: tuple[SourceFile, ...]  # sorted by path; path = relative POSIX
    python_roots: tuple[str, ...]  # relative POSIX sys.path-like dirs ("" = the root), sorted
    problems: tuple[ParseProblem, ...]  # symlink loops, unreadable dirs/files, ... (line=0)


def language_of(path: str) -> Language | None:
    """``"python"`` for ``.py``, ``"cuda"`` for CUDA/C/C++ sources and headers, ``"cmake"``."""
    name = posixpath.basename(path)
    if name == "CMakeLists.txt":
        return "cmake"
    suffix = posixpath.splitext(name)[1]
    if suffix == ".py":
        return "python"
    if suffix in _CUDA_SUFFIXES:
        return "cuda"
    if suffix == ".cmake":
        return "cmake"
    return None


def _is_identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def module_name(path: str, python_roots: tuple[str, ...]) -> str | None:
    """Dotted module name of ``path`` under the longest python root containing it.

    ``a/b/__init__.py`` -> ``a.b``, ``a/b/c.py`` -> ``a.b.c``. ``None`` when the file is not
    ``.py``, no root contains it, or a part below the root is not an identifier.
    """
    if not path.endswith(".py"):
        return None
    best: str | None = None
    for r in python_roots:
        if (r == "" or path.startswith(r + "/")) and (best is None or len(r) > len(best)):
            best = r
    if best is None:
        return None
    parts = (path[len(best) + 1 :] if best else path)[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(_is_identifier(p) for p in parts):
        return None
    return ".".join(parts)


def file_module_name(path: str, python_roots: tuple[str, ...]) -> str | None:
    """:func:`module_name`, or for a file no import can name (a part below its root is no
    identifier: ``test/registered/8-gpu-models/test_x.py``, ``scripts/cli-so.py``) its dotted
    path as it is. Such a file runs as a script or a test; nothing imports it by that name, but
    its own imports are reads like any module's (a plan that deletes what it imports must
    take it along or keep the import's target)."""
    name = module_name(path, python_roots)
    if name is not None or not path.endswith(".py"):
        return name
    best = max((r for r in python_roots if r == "" or path.startswith(r + "/")),
               key=len, default=None)
    if best is None:
        return None
    parts = (path[len(best) + 1:] if best else path)[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) if parts and all(parts) else None


def _parent(rel: str) -> str:
    return rel.rpartition("/")[0]


def _join(base: str, rel: str) -> str | None:
    """``base``/``rel`` normalised; ``None`` if it escapes the scanned root or is absolute."""
    if posixpath.isabs(rel):
        return None
    joined = posixpath.normpath(posixpath.join(base, rel) if base else rel)
    if joined == ".":
        return ""
    if joined == ".." or joined.startswith("../"):
        return None
    return joined


class _Walker:
    def __init__(self, root: Path, extra_excludes: tuple[str, ...]) -> None:
        self.root = root
        self.root_real = os.path.realpath(root)
        self.defaults = PatternList("", parse_lines(DEFAULT_EXCLUDES))
        self.extra = PatternList("", parse_lines(extra_excludes))
        self.files: list[SourceFile] = []
        self.problems: list[ParseProblem] = []
        self.init_dirs: set[str] = set()
        self.project_dirs: set[str] = set()
        self.metadata: list[str] = []  # pyproject.toml / setup.cfg paths
        # what the walk depended on, for analyzer.discover.cache: folders listed, and files
        # read (ignore files, packaging metadata) or looked for
        self.visited: list[str] = []
        self.deps: list[str] = []

    def _problem(self, rel: str, kind: str, message: str) -> None:
        self.problems.append(ParseProblem(rel or ".", 0, kind, message))

    def _read_text(self, abspath: str, rel: str) -> str | None:
        self.deps.append(abspath)
        try:
            with open(abspath, encoding="utf-8", errors="replace") as fh:
                return fh.read()
        except OSError as exc:
            self._problem(rel, "unreadable", f"cannot read {rel}: {exc.strerror or exc}")
            return None

    def _excluded(self, rel: str, is_dir: bool, abspath: str, lists: list[PatternList]) -> bool:
        if is_dir and (self.defaults.match(rel, True)
                       or os.path.exists(os.path.join(abspath, "pyvenv.cfg"))):
            return True
        if self.extra and self.extra.match(rel, is_dir):
            return True
        return is_ignored(rel, is_dir, lists)

    def walk(self) -> None:
        lists: list[PatternList] = []
        exclude = os.path.join(self.root, ".git", "info", "exclude")
        self.deps.append(exclude)
        if os.path.isfile(exclude):
            text = self._read_text(exclude, ".git/info/exclude")
            if text:
                lists.append(PatternList.from_text("", text))
        # stack of (absolute dir, relative dir, ignore lists, real paths of the walk path)
        stack: list[tuple[str, str, list[PatternList], tuple[str, ...]]] = [
            (str(self.root), "", lists, (self.root_real,))
        ]
        while stack:
            self._walk_dir(*stack.pop(), stack)

    def _walk_dir(self, absdir: str, rel: str, lists: list[PatternList],
                  chain: tuple[str, ...], stack: list[Any]) -> None:
        self.visited.append(absdir)
        try:
            with os.scandir(absdir) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if not rel:
                raise DiscoveryError(f"cannot read directory {absdir}: {exc.strerror}") from None
            self._problem(rel, "unreadable", f"cannot read directory {rel}: {exc.strerror}")
            return
        if any(e.name == ".gitignore" for e in entries):
            path = os.path.join(absdir, ".gitignore")
            if os.path.isfile(path):
                text = self._read_text(path, f"{rel}/.gitignore" if rel else ".gitignore")
                if text:
                    lists = [*lists, PatternList.from_text(rel, text)]
        for entry in entries:
            self._visit(entry, rel, lists, chain, stack)

    def _visit(self, entry: os.DirEntry[str], rel_dir: str, lists: list[PatternList],
               chain: tuple[str, ...], stack: list[Any]) -> None:
        name = entry.name
        if language_of(name) is None and name not in _PROJECT_FILES:
            try:
                if entry.is_file(follow_symlinks=False):
                    return  # a plain file depgraph never reads: no need to match ignores
            except OSError:
                pass
        rel = f"{rel_dir}/{name}" if rel_dir else name
        st: os.stat_result | None = None
        link_error: OSError | None = None
        is_link = False
        try:
            is_link = entry.is_symlink()
            if is_link:
                st = os.stat(entry.path)  # follows the link: ELOOP / ENOENT land below
                is_dir = stat.S_ISDIR(st.st_mode)
            else:
                is_dir = entry.is_dir(follow_symlinks=False)
        except OSError as exc:
            link_error, is_dir = exc, False
        if self._excluded(rel, is_dir, entry.path, lists):
            return
        if link_error is not None and not is_link:
            self._problem(rel, "unreadable", f"cannot stat {rel}: {link_error.strerror}")
            return
        if is_link:
            real = self._check_link(entry.path, rel, link_error, is_dir, chain)
            if real is None:
                return
        else:
            real = f"{chain[-1]}/{name}" if is_dir else ""
        if is_dir:
            stack.append((entry.path, rel, lists, (*chain, real)))
            return
        self._visit_file(entry, name, rel, rel_dir, st)

    def _check_link(self, path: str, rel: str, error: OSError | None, is_dir: bool,
                    chain: tuple[str, ...]) -> str | None:
        """Real path of a usable symlink, or ``None`` after recording why it is not."""
        if error is not None:
            if error.errno == errno.ELOOP:
                self._problem(rel, "symlink-loop", f"symlink {rel} refers to itself (loop)")
            elif error.errno in (errno.ENOENT, errno.ENOTDIR):
                target = _readlink(path)
                self._problem(rel, "broken-symlink", f"symlink {rel} -> {target} is dangling")
            else:
                self._problem(rel, "unreadable", f"cannot follow symlink {rel}: {error.strerror}")
            return None
        real = os.path.realpath(path)
        if real != self.root_real and not real.startswith(self.root_real.rstrip(os.sep) + os.sep):
            self._problem(rel, "symlink-outside-root",
                          f"symlink {rel} -> {_readlink(path)} points outside the scanned root")
            return None
        if is_dir and real in chain:
            self._problem(rel, "symlink-loop", f"symlink {rel} -> {_readlink(path)} loops back "
                          "to an enclosing directory")
            return None
        return real

    def _visit_file(self, entry: os.DirEntry[str], name: str, rel: str, rel_dir: str,
                    st: os.stat_result | None) -> None:
        if name in _PROJECT_FILES:
            self.project_dirs.add(rel_dir)
            if name != "setup.py":
                self.metadata.append(rel)
        lang = language_of(name)
        if lang is None:
            return
        if st is None:
            try:
                st = entry.stat()
            except OSError as exc:
                self._problem(rel, "unreadable", f"cannot stat {rel}: {exc.strerror}")
                return
        if not stat.S_ISREG(st.st_mode):
            return  # fifo, socket, device: nothing to extract
        if name == "__init__.py":
            self.init_dirs.add(rel_dir)
        self.files.append(SourceFile(rel, lang, st.st_size,
                                     (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)))


def _readlink(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _declared_roots(walker: _Walker) -> tuple[set[str], set[str]]:
    """Source roots declared by packaging metadata, plus ``src/`` next to a project file; and
    the package folders it names explicitly."""
    roots: set[str] = set()
    packages: set[str] = set()
    for d in walker.project_dirs:
        src = f"{d}/src" if d else "src"
        if os.path.isdir(walker.root / src):
            roots.add(src)
    for rel in walker.metadata:
        base = _parent(rel)
        text = walker._read_text(str(walker.root / rel), rel)
        if text is None:
            continue
        try:
            found = _toml_roots(text) if rel.endswith(".toml") else _cfg_roots(text)
            named = _toml_packages(text) if rel.endswith(".toml") else []
        except (tomllib.TOMLDecodeError, configparser.Error, ValueError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            walker._problem(rel, "bad-metadata", f"cannot parse {rel}: {first}")
            continue
        for r in found:
            joined = _join(base, r)
            if joined is not None:
                roots.add(joined)
        for pkg in named:
            joined = _join(base, pkg)
            if joined is not None:
                packages.add(joined)
    return roots, packages


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _toml_roots(text: str) -> list[str]:
    data = tomllib.loads(text)
    tool = _get(data, "tool") or {}
    out = _strings(_get(tool, "setuptools", "packages", "find", "where"))
    package_dir = _get(tool, "setuptools", "package-dir")
    if isinstance(package_dir, dict):
        out += _strings(package_dir.get(""))
    for pkg in _strings(_get(tool, "hatch", "build", "targets", "wheel", "packages")):
        out.append(posixpath.dirname(pkg.rstrip("/")) or ".")
    for pkg in _strings(_get(tool, "scikit-build", "wheel", "packages")):
        out.append(posixpath.dirname(pkg.rstrip("/")) or ".")
    out += _strings(_get(tool, "maturin", "python-source"))
    poetry = _get(tool, "poetry", "packages")
    if isinstance(poetry, list):
        out += [p["from"] for p in poetry if isinstance(p, dict) and isinstance(p.get("from"), str)]
    return out


def _toml_packages(text: str) -> list[str]:
    """Package folders a ``pyproject.toml`` names one by one (wheel package lists)."""
    tool = _get(tomllib.loads(text), "tool") or {}
    out = [pkg.rstrip("/") for pkg in (
        *_strings(_get(tool, "hatch", "build", "targets", "wheel", "packages")),
        *_strings(_get(tool, "scikit-build", "wheel", "packages")))]
    poetry = _get(tool, "poetry", "packages")
    if isinstance(poetry, list):
        out += [posixpath.join(p.get("from", ""), p["include"]) for p in poetry
                if isinstance(p, dict) and isinstance(p.get("include"), str)
                and isinstance(p.get("from", ""), str) and "*" not in p["include"]]
    return out


def _cfg_roots(text: str) -> list[str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    out: list[str] = []
    if parser.has_option("options", "package_dir"):
        for line in parser.get("options", "package_dir").splitlines():
            key, sep, value = line.partition("=")
            if sep and not key.strip() and value.strip():
                out.append(value.strip())
    if parser.has_option("options.packages.find", "where"):
        out += parser.get("options.packages.find", "where").split()
    return out


def _longest_containing(dirs: set[str], rel_dir: str) -> str | None:
    """The longest of ``dirs`` that is ``rel_dir`` or one of its ancestors ("" contains all)."""
    d = rel_dir
    while True:
        if d in dirs:
            return d
        if not d:
            return None
        d = _parent(d)


def _root_of(path: str, init_dirs: set[str], declared: set[str], project: set[str],
             packages: set[str] | frozenset[str] = frozenset()) -> str:
    package = _longest_containing(set(packages), _parent(path))
    if package is not None and package:
        return _parent(package)
    parts = path.split("/")[:-1]
    d = ""
    for part in parts:  # from the top down: the first __init__-bearing dir is the topmost
        d = f"{d}/{part}" if d else part
        if d in init_dirs:
            return _parent(d)
    rel_dir = _parent(path)
    found = _longest_containing(declared, rel_dir)
    if found is None:
        found = _longest_containing(project, rel_dir)
    return found or ""


def discover(root: Path, *, extra_excludes: tuple[str, ...] = ()) -> Discovery:
    """Walk ``root`` and return its source files, Python source roots and problems."""
    return walk_tree(root, extra_excludes)[0]


def resolve_root(root: Path) -> Path:
    """The scanned folder, resolved; ``DiscoveryError`` when it cannot be walked at all."""
    path = Path(root)
    try:
        resolved = path.resolve()
        exists, is_dir = resolved.exists(), resolved.is_dir()
    except (OSError, RuntimeError) as exc:
        raise DiscoveryError(f"cannot resolve {path}: {exc}") from None
    if not exists:
        raise DiscoveryError(f"path does not exist: {path}")
    if not is_dir:
        raise DiscoveryError(f"not a directory: {path}")
    return resolved


def walk_tree(root: Path, extra_excludes: tuple[str, ...] = ()
              ) -> tuple[Discovery, list[str], list[str]]:
    """The discovery, plus the folders the walk listed and the files it read or looked for
    (what a cached discovery must re-check)."""
    resolved = resolve_root(root)
    walker = _Walker(resolved, tuple(extra_excludes))
    walker.walk()
    declared, packages = _declared_roots(walker)
    init_dirs = walker.init_dirs - {""}  # the scanned root's own __init__.py makes no package
    roots = {
        _root_of(f.path, init_dirs, declared, walker.project_dirs, packages)
        for f in walker.files if f.language == "python"
    }
    found = Discovery(
        root=resolved,
        files=tuple(sorted(walker.files, key=lambda f: f.path)),
        python_roots=tuple(sorted(roots)),
        problems=tuple(sorted(walker.problems, key=lambda p: (p.path, p.kind))),
    )
    return found, walker.visited, walker.deps
