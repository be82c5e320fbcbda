"""Extract stage, before parsing: which files are parsed whatever the imports say (the seeds of
``analyzer.extract.demand``), from the discovery, the options and the profile.

A seed is a file something may depend on without importing it, or whose own contents decide
whether it stays:
- every file that is not a Python module of a regular package's deletion scope: C/C++/CUDA,
  CMake, tests, scripts, examples (peripheral files stay whole or go whole by what they use),
  files outside any Python root;
- the roots as given (every module a ``--roots`` name could mean), the packaging entry points,
  and files named ``__main__.py``, ``setup.py`` or holding the bytes ``__main__`` (a script);
- every module the profile names: entry points, registries' targets, constants, hints, the
  ``never_delete`` entries (paths and modules), ``all``/``companion`` plugin families whole,
  the dropped and kept features' paths, and files containing a feature identifier's literal
  part (features claim symbols by name).

Everything else is parsed only if a parsed file can name it (the closure).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from analyzer.config.globs import path_matches
from analyzer.config.types import Profile
from analyzer.discover import entry_points
from analyzer.discover.test_files import is_test_path
from analyzer.discover.walk import Discovery, file_module_name
from analyzer.extract.demand import Demand, dotted_prefixes
from analyzer.extract.needle_cache import NEEDLE, SCRIPT, NeedleCache
from analyzer.extract.python_facts import PythonFacts
from analyzer.extract.runner import ReadFile
from analyzer.model import SourceFile

_WILDCARDS = re.compile(r"[*?\[\]]")


def demand_for(found: Discovery, reads: list[ReadFile], roots: tuple[str, ...],
               profile: Profile | None, entry_files: dict[str, bytes | str]) -> Demand:
    """The seeds of the closure (module docstring), the plugin packages whose members are
    selected, and the hook naming enumerated bases. The byte searches are stored between
    scans of the tree (:class:`NeedleCache`; no store: every file is searched)."""
    files = found.files
    module_of = [file_module_name(f.path, found.python_roots) if f.language == "python" else None
                 for f in files]
    names: dict[str, int] = {}
    for i, n in enumerate(module_of):
        if n is not None and n not in names:
            names[n] = i
    regular_tops = {n for n, i in names.items() if "." not in n
                    and files[i].path.endswith("__init__.py")}
    test_globs = profile.test_paths if profile is not None else ()
    needles = _needles(profile)
    claims_all = b"" in needles  # a pattern with no literal part matches every file
    if claims_all:
        needles = set()
    cache = NeedleCache(found.root)
    search = cache.search(needles)
    seeds: set[int] = set()
    for i, f in enumerate(files):
        name = module_of[i]
        if name is None or names.get(name) != i or name.split(".")[0] not in regular_tops \
                or is_test_path(f.path, test_globs):
            seeds.add(i)
            continue
        base = PurePosixPath(f.path).name
        if base in ("__main__.py", "setup.py") \
                or search.flags(reads[i].data, reads[i].digest) & SCRIPT:
            seeds.add(i)
    named = set(_root_modules(roots, names, files))
    named |= _entry_point_modules(entry_files)
    globs: list[str] = []
    restricted: set[str] = set()
    if profile is not None:
        named |= _profile_modules(profile)
        for package in _hinted_packages(profile):
            named.update(n for n in names if n == package or n.startswith(package + "."))
        globs = [e.path for e in profile.never_delete if e.path]
        for feature in profile.features.values():
            globs.extend(feature.paths)
        families = [f for f in profile.plugin_families if f.select in ("all", "companion")]
        restricted = {f.package for f in profile.plugin_families if f.select != "all"}
        for fam in families:
            named.update(n for n in names if n == fam.package or n.startswith(fam.package + "."))
    for n in named:
        for candidate in dotted_prefixes(n):
            if candidate in names:
                seeds.add(names[candidate])
    if claims_all:
        seeds.update(i for i, f in enumerate(files) if f.language == "python")
    patterns = tuple(globs)
    for i, f in enumerate(files):
        if i in seeds:
            continue
        if (patterns and path_matches(f.path, patterns)) \
                or (needles and search.flags(reads[i].data, reads[i].digest) & NEEDLE):
            seeds.add(i)
    cache.save(search)
    return Demand(frozenset(seeds), frozenset(restricted), enumerated_bases)


def _needles(profile: Profile | None) -> set[bytes]:
    """The literal parts of the profile's feature identifiers and platform methods: a file
    holding one may define a symbol a feature claims by name."""
    needles: set[bytes] = set()
    if profile is not None:
        for feature in profile.features.values():
            needles.update(_literal_part(p) for p in feature.identifiers)
        needles.update(_literal_part(p) for p in profile.platform_methods)
    return needles


def enumerated_bases(parsed: list[PythonFacts]) -> set[bytes]:
    """Names of the classes parsed code enumerates with ``Base.__subclasses__``: a subclass
    anywhere in the tree is live through it, so files naming one are parsed."""
    out: set[bytes] = set()
    for facts in parsed:
        for ref in facts.references:
            if not ref.chain.endswith(".__subclasses__"):
                continue
            chain = ref.chain.rpartition(".")[0]
            out.add(chain.rpartition(".")[2].encode())
            head = chain.split(".")[0]
            for fact in facts.imports:
                for imported in fact.names:
                    if imported.alias == head:
                        out.add(imported.name.encode())
    return out


def may_answer_pattern(names: set[str]) -> re.Pattern[bytes]:
    """Bytes of a file that may answer what a stage decided by the absence of a name
    tree-wide (``ModuleIndex.sought_by_name``): an assignment to an attribute of that name
    (``x.name =``, or ``name =`` at the start of a line: a class attribute), a ``setattr``
    spelling it, or a function or method of that name."""
    alt = b"|".join(re.escape(n.encode()) for n in sorted(names))
    assign = rb"\s*(?::[^=\n]*)?=(?!=)"
    return re.compile(
        rb"\.(?:" + alt + rb")" + assign + rb"|^[ \t]*(?:" + alt + rb")" + assign
        + rb"|def\s+(?:" + alt + rb")\b|setattr\s*\([^)]*[\"'](?:" + alt + rb")[\"']",
        re.MULTILINE)


def _literal_part(pattern: str) -> bytes:
    """The longest run of a glob without wildcards: every name it matches contains it."""
    return max(_WILDCARDS.split(pattern), key=len).encode()


def _root_modules(roots: tuple[str, ...], names: dict[str, int],
                  files: Sequence[SourceFile]) -> list[str]:
    """Every module a ``--roots`` name may resolve to (``analyzer.analysis.roots``): the
    same name, dotted suffix, path or path suffix; a superset."""
    by_path = {files[i].path: n for n, i in names.items()} if roots else {}
    out: list[str] = []
    for raw in roots:
        raw = raw.strip()
        part = raw.split(":", 1)[0] if ":" in raw and not raw.endswith(".py") else raw
        tail = PurePosixPath(part).name.removesuffix(".py").rpartition(".")[2]
        for name in names:
            if name == part or name.endswith("." + part) or name.rpartition(".")[2] == tail:
                out.append(name)
        for path, name in by_path.items():
            if path == part or path.endswith("/" + part.lstrip("./")):
                out.append(name)
    return out


def _entry_point_modules(entry_files: dict[str, bytes | str]) -> set[str]:
    out: set[str] = set()
    for rel, data in entry_files.items():
        if isinstance(data, str):
            continue
        eps, _errors = entry_points.extract(rel, data)
        out.update(ep.value.partition(":")[0].strip() for ep in eps)
    return out


def _profile_modules(profile: Profile) -> set[str]:
    """Dotted names the profile gives (each may be a module or a name in one; the seeding
    takes every prefix that is a module)."""
    out: set[str] = set()
    out.update(ep.partition(":")[0] for ep in profile.entry_points)
    out.update(reg.target for reg in profile.registries if reg.target)
    constants = [c.name for c in profile.constants]
    for feature in profile.features.values():
        out.update(feature.extension_modules)
        constants.extend(feature.constants)
    out.update(c for c in constants if not c.startswith("env:") and not _WILDCARDS.search(c))
    out.update(e.symbol.partition(":")[0] for e in profile.never_delete if e.symbol)
    out.update(h.source.partition(":")[0] for h in profile.dynamic_imports)
    out.update(profile.platform_methods.values())
    return out


def _hinted_packages(profile: Profile) -> set[str]:
    """What dynamic-import hints load (the profile's edges, which no file shows): each
    target module, and every module under a ``pkg.*`` / ``pkg.**`` target."""
    return {t.partition(":")[0].removesuffix(".**").removesuffix(".*")
            for hint in profile.dynamic_imports for t in hint.targets}
