"""Resolve stage, the tree's shape: which dotted names are modules (their files and package
flags), packages, extension modules and packages only the build installs; what each package
holds; the top-level names; which file each path is.

The shape is a function of every module's name, path and package flag and of the extension
modules the build installs. :class:`~analyzer.resolve.python.ModuleIndex` answers resolution
from it and notes each read of it (``analyzer.resolve.python.SHAPE_READS``); a record of a
module's edges keeps those reads (``kind:name``), and :func:`shape_changes` of two shapes says
which reads two trees answer otherwise (:meth:`ShapeChanges.touches`): a file added, removed
or renamed leaves every record that asked nothing about it as it was
(``analyzer.graph.edge_store``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# (module, its file's path, whether it is a package's __init__)
ModuleFile = tuple[str, str, bool]


@dataclass(frozen=True)
class TreeShape:
    """The shape of a tree (see the module docstring)."""

    modules: dict[str, tuple[str, bool]]  # module -> (path, is_package)
    extensions: dict[str, str]  # extension module -> the CMake target building it
    by_path: dict[str, str]  # path -> module
    packages: set[str]  # every package, namespace and installed packages included
    children: dict[str, list[str]]  # package -> the modules and packages in it, sorted
    installed_packages: set[str]  # packages only the build creates (extension destinations)
    top_level: set[str]  # the first part of every name above


def tree_shape(files: Iterable[ModuleFile], extensions: Mapping[str, str] | None = None
               ) -> TreeShape:
    """The shape of a tree whose modules are ``files`` (module names unique)."""
    modules = {name: (path, is_package) for name, path, is_package in files}
    packages: set[str] = set()
    children: dict[str, list[str]] = {}
    for name, (_path, is_package) in modules.items():
        parts = name.split(".")
        for i in range(1, len(parts)):
            packages.add(".".join(parts[:i]))
        if is_package:
            packages.add(name)
        if len(parts) > 1:
            children.setdefault(".".join(parts[:-1]), []).append(name)
    for pkg in packages:
        if pkg not in modules and "." in pkg:
            children.setdefault(pkg.rsplit(".", 1)[0], []).append(pkg)
    exts = dict(extensions or {})
    installed: set[str] = set()
    for ext in exts:
        parts = ext.split(".")
        for i in range(1, len(parts)):
            prefix = ".".join(parts[:i])
            if prefix not in packages and prefix not in modules:
                installed.add(prefix)
    packages |= installed
    for kids in children.values():
        kids.sort()
    top = {name.split(".")[0] for name in modules} | {p.split(".")[0] for p in packages} \
        | {e.split(".")[0] for e in exts}
    return TreeShape(modules, exts, {path: name for name, (path, _) in modules.items()},
                     packages, children, installed, top)


@dataclass(frozen=True)
class ShapeChanges:
    """What two shapes answer otherwise, by the kind of read that sees it."""

    names: frozenset[str]  # ("in", name): module file, package, extension, installed
    installed: frozenset[str]  # packages only one of the two installs: every name inside
    children: frozenset[str]  # packages holding other modules
    top: frozenset[str]  # top-level names only one of the two has
    paths: frozenset[str]  # paths naming another module, or only in one of the two

    def __bool__(self) -> bool:
        return bool(self.names or self.installed or self.children or self.top or self.paths)

    def touches(self, reads: Iterable[str]) -> bool:
        """Some read of ``reads`` (``kind:name``, as records keep them) is answered
        otherwise."""
        for read in reads:
            kind, _, name = read.partition(":")
            if kind == "in":
                if name in self.names or (self.installed and any(
                        name.startswith(p + ".") for p in self.installed)):
                    return True
            elif kind == "children":
                if name in self.children:
                    return True
            elif kind == "top":
                if name in self.top:
                    return True
            elif kind == "at":
                # (ModuleIndex.module_at: the files whose path ends so, or that it ends in)
                if any(p in path_tails(name) or name in path_tails(p) for p in self.paths):
                    return True
            else:  # (a read of a kind this code does not know: nothing is assumed)
                return True
        return False


def shape_changes(old: TreeShape, new: TreeShape) -> ShapeChanges:
    """What ``old`` and ``new`` answer otherwise (see :class:`ShapeChanges`)."""
    def status(shape: TreeShape, name: str) -> tuple[object, ...]:
        return (shape.modules.get(name), name in shape.packages, shape.extensions.get(name),
                name in shape.installed_packages)

    every = (old.modules.keys() | new.modules.keys() | old.packages | new.packages
             | old.extensions.keys() | new.extensions.keys())
    names = frozenset(n for n in every if status(old, n) != status(new, n))
    kids = frozenset(p for p in old.children.keys() | new.children.keys()
                     if old.children.get(p) != new.children.get(p))
    paths = frozenset(p for p in old.by_path.keys() | new.by_path.keys()
                      if old.by_path.get(p) != new.by_path.get(p))
    return ShapeChanges(names, frozenset(old.installed_packages ^ new.installed_packages),
                        kids, frozenset(old.top_level ^ new.top_level), paths)


def path_tails(path: str) -> list[str]:
    """``a/b/c.py`` -> ``["a/b/c.py", "b/c.py", "c.py"]``: the path and what follows each of
    its slashes."""
    out = [path]
    at = path.find("/")
    while at >= 0:
        out.append(path[at + 1:])
        at = path.find("/", at + 1)
    return out
