"""Resolve stage, the tree's shape: what name resolution knows of a tree beside its files' facts.

The shape is every module's name, path and package flag and the extension modules the build
installs (module -> target). From it follow the tables :class:`~analyzer.resolve.python.
ModuleIndex` answers ``is_module``, ``submodules``, ``is_internal`` and ``module_at`` from
(:func:`shape_tables`: one definition, used by the index and by :class:`ShapeDiff`).

A resolution depends on the shape only through the names it asked about (each noted by the
index while recording: ``("shape", name)``: is there a module, a package, an extension module
of the name), the packages whose children it listed (``("shape", "*" + package)``) and the
relative paths it looked up (``("path", path)``). :class:`ShapeDiff` says which of those
answer otherwise in another shape, so a module's recorded edges
(``analyzer.graph.edge_store``) stand in a tree of another shape -- the gate's pruned copy, a
tree with a file added or removed -- when none of what they asked about changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# module name -> (path, is_package): the modules part of a shape
Layout = Mapping[str, tuple[str, bool]]
# the mark of a question about a package's children (before the package's name)
CHILDREN = "*"


@dataclass(frozen=True)
class ShapeTables:
    """What follows from a shape: every package (namespace packages included, and the
    packages only the build creates), each package's direct children (sorted), the packages
    only the build creates, and the top-level names."""

    packages: set[str]
    children: dict[str, list[str]]
    installed_packages: set[str]
    top_level: set[str]


def shape_tables(names: Iterable[tuple[str, bool]], extensions: Iterable[str]) -> ShapeTables:
    """The tables of a shape of these modules ((name, is_package) each) and extension
    modules."""
    modules: dict[str, bool] = dict(names)
    packages: set[str] = set()
    children: dict[str, list[str]] = {}
    for name, is_package in modules.items():
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
    installed: set[str] = set()
    exts = list(extensions)
    for ext in exts:
        parts = ext.split(".")
        for i in range(1, len(parts)):
            prefix = ".".join(parts[:i])
            if prefix not in packages and prefix not in modules:
                installed.add(prefix)
    packages |= installed
    for kids in children.values():
        kids.sort()
    top_level = {name.split(".")[0] for name in modules} | {
        p.split(".")[0] for p in packages} | {e.split(".")[0] for e in exts}
    return ShapeTables(packages, children, installed, top_level)


class ShapeDiff:
    """Which names and relative paths a resolution answers otherwise in shape ``new`` than
    in shape ``old`` (each a layout and its extension modules)."""

    def __init__(self, old: Layout, old_extensions: Mapping[str, str], new: Layout,
                 new_extensions: Mapping[str, str]):
        was = shape_tables(((n, p) for n, (_, p) in old.items()), old_extensions)
        now = shape_tables(((n, p) for n, (_, p) in new.items()), new_extensions)
        names = set(old) | set(new) | was.packages | now.packages \
            | set(old_extensions) | set(new_extensions)
        # (what the shape says of a name: its file and package flag, whether it is a
        # package, an extension module's target, a package only the build creates -- the
        # top-level names follow from these; and, asked apart, its children)
        self.names = frozenset(
            n for n in names
            if old.get(n) != new.get(n) or (n in was.packages) != (n in now.packages)
            or old_extensions.get(n) != new_extensions.get(n)
            or (n in was.installed_packages) != (n in now.installed_packages)) | frozenset(
            CHILDREN + n for n in set(was.children) | set(now.children)
            if was.children.get(n) != now.children.get(n))
        # is_module answers yes for any name inside a package only the build creates
        self.installed = frozenset(was.installed_packages ^ now.installed_packages)
        old_paths = {path for path, _ in old.values()}
        new_paths = {path for path, _ in new.values()}
        self.paths = frozenset(old_paths ^ new_paths)

    @property
    def empty(self) -> bool:
        return not (self.names or self.installed or self.paths)

    def touches(self, names: Iterable[str], paths: Iterable[str] = ()) -> bool:
        """Some of ``names`` (a name, or ``CHILDREN`` + a package: the questions noted) or of
        the relative ``paths`` looked up answers otherwise."""
        changed, installed = self.names, self.installed
        for name in names:
            if name in changed:
                return True
            if installed and any(name.startswith(p + ".") for p in installed):
                return True
        return any(self._path_touched(p) for p in paths) if self.paths else False

    def _path_touched(self, path: str) -> bool:
        """``module_at(path)`` may answer otherwise: a file added or removed ends with the
        path, or the path ends with it (the files it matches, see ``ModuleIndex.module_at``)."""
        return any(q == path or q.endswith("/" + path) or path.endswith("/" + q)
                   for q in self.paths)
