"""Query core: the one fingerprint rule -- a query's version is a hash of the code it runs.

depgraph's own modules are read as text and parsed with ``ast`` (never imported for this): a
module's imports of ``analyzer.*`` (``import a.b``, ``from a import b`` -- ``a.b`` too when it is
a module -- and imports inside functions) give the static import closure of the modules a
query names. Its version hashes depgraph's version, the Python version (pickles and ``ast``),
the distributions the query names (a new grammar parses differently), the bytes of every
module of the closure with the data files of their packages (a built-in profile, say), and the
data folders the query names (``queries``). So an edit of the plan stage leaves the facts of
the extraction valid, while an edit of a module every fact pickles (``analyzer.model``)
invalidates them. depgraph has no dynamic imports of its own modules, which is what makes the
static closure the whole of the code a query can run.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from pathlib import Path

from analyzer import __version__
from analyzer.util.data import data_dir

_PACKAGE = Path(__file__).resolve().parent.parent  # analyzer/
_DATA_SUFFIXES = frozenset({".scm", ".toml", ".j2", ".json"})


@cache
def _module_files() -> dict[str, Path]:
    """Every module of ``analyzer`` by dotted name (a package by its ``__init__``)."""
    out: dict[str, Path] = {}
    for path in sorted(_PACKAGE.rglob("*.py")):
        parts = path.relative_to(_PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


@cache
def _package_data() -> dict[str, tuple[Path, ...]]:
    """Package -> the data files in its folder and in its subfolders that are no package."""
    modules = _module_files()
    out: dict[str, list[Path]] = {}
    for path in sorted(_PACKAGE.rglob("*")):
        if path.suffix not in _DATA_SUFFIXES or not path.is_file():
            continue
        folder = path.parent
        while folder != _PACKAGE.parent and not (folder / "__init__.py").is_file():
            folder = folder.parent
        name = ".".join(folder.relative_to(_PACKAGE.parent).parts)
        if name in modules:
            out.setdefault(name, []).append(path)
    return {k: tuple(v) for k, v in out.items()}


@cache
def _imports(module: str) -> frozenset[str]:
    """The modules of ``analyzer`` that ``module`` imports, and their parent packages: every
    ``import``/``from ... import`` statement of its text, wherever it stands (inside functions,
    under ``TYPE_CHECKING``; in a docstring too: more, never less). A text search, not a
    parse -- a parse of every module costs half a second a command; ``tests/core`` checks the
    search finds every import ``ast`` finds."""
    modules = _module_files()
    path = modules[module]
    is_package = path.name == "__init__.py"
    text = _COMMENT.sub("", _CONTINUED.sub(" ", path.read_text(encoding="utf-8")))
    found: set[str] = set()
    for match in _STATEMENT.finditer(text):
        if match["plain"] is not None:
            found.update(n.split()[0] for n in match["plain"].split(",") if n.strip())
            continue
        base = _absolute(module, is_package, match["module"] or None, len(match["dots"]))
        found.add(base)
        names = match["names"] if match["names"] is not None else match["listed"]
        found.update(f"{base}.{n.split()[0]}" for n in names.split(",") if n.strip())
    out: set[str] = set()
    for name in found:
        parts = name.split(".")
        out.update(p for i in range(1, len(parts) + 1)
                   if (p := ".".join(parts[:i])) in modules)
    out.discard(module)
    return frozenset(out)


_CONTINUED = re.compile(r"\\\r?\n")  # a backslash continuation: one logical line
_COMMENT = re.compile(r"#[^\n]*")
_STATEMENT = re.compile(
    r"^[ \t]*(?:import[ \t]+(?P<plain>[\w., \t]+)"
    r"|from[ \t]+(?P<dots>\.*)(?P<module>[\w.]*)[ \t]+import[ \t]+"
    r"(?:\((?P<listed>[^)]*)\)|(?P<names>[\w., \t*]+)))",
    re.MULTILINE)


def _absolute(module: str, is_package: bool, name: str | None, level: int) -> str:
    """The absolute name of a (possibly relative) ``from`` import in ``module``."""
    if not level:
        return name or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[:len(parts) - (level - 1)]
    return ".".join([*parts, name] if name else parts)


def import_closure(roots: Iterable[str]) -> frozenset[str]:
    """``roots`` (a package stands for all its modules) and every module they import,
    transitively, with the parent packages of each."""
    modules = _module_files()
    todo: list[str] = []
    for root in roots:
        if root not in modules:
            raise KeyError(f"no module {root!r} in depgraph")
        todo.extend(m for m in modules if m == root or m.startswith(root + "."))
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        todo.extend(p for i in range(1, len(parts)) if (p := ".".join(parts[:i])) in modules)
        todo.extend(_imports(name) - seen)
    return frozenset(seen)


@cache
def code_version(code: tuple[str, ...], data: tuple[str, ...] = (),
                 dists: tuple[str, ...] = ()) -> str:
    """The version of a query running the modules ``code`` (and what they import), reading
    the data folders ``data`` and the installed distributions ``dists``."""
    h = hashlib.sha256(f"depgraph={__version__}\0py={sys.version_info[:2]}\0".encode())
    for dist in sorted(dists):
        try:
            h.update(f"{dist}={metadata.version(dist)}\0".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{dist}=?\0".encode())
    modules = _module_files()
    package_data = _package_data()
    files: list[Path] = []
    for name in sorted(import_closure(code)):
        files.append(modules[name])
        files.extend(package_data.get(name, ()))
    for folder in data:
        files.extend(sorted(p for p in data_dir(folder).glob("*") if p.is_file()))
    for path in files:
        try:
            rel = path.relative_to(_PACKAGE.parent)
        except ValueError:
            rel = Path(path.parent.name) / path.name
        h.update(str(rel).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]
