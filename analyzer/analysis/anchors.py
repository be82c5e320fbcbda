"""Analysis stage: how much of what a profile says of each feature this tree still has.

A feature is anchored on names: path globs, identifiers, CMake targets, fetched repositories,
CMake options, extension modules, registry keys and constants. A tree that moved or renamed
things (SGLang's kernel project left ``sgl-kernel/`` in August 2026) leaves some of them
matching nothing: then the profile's knowledge of that feature is out of date, and the plan
may miss what the feature holds. ``feature_anchors`` counts, per feature, the anchors that
match and lists those that do not; a feature whose anchors mostly miss is flagged ahead of
everything else in the terminal, the report and the manifest.

Paths are hints; what a feature is shows in its code: the identifiers it defines, the
packages it imports (``flash_attn.cute``). Where a path or a name goes stale, the files of
the tree showing those are named as candidates (the file a rename moved the code to):
``stale: path **/jit_kernel/flash_attention/cute (candidates:
python/sglang/jit_kernel/flash_attention_v4.py)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from analyzer.config.globs import any_identifier_matches, any_path_matches
from analyzer.config.types import Feature, Profile
from analyzer.resolve.cmake_model import CMakeProject
from analyzer.resolve.python import ModuleIndex

# below this share of anchors matching, a feature is flagged as out of date
FLAG_BELOW = 0.5


# candidates named per stale anchor
CANDIDATES = 3


@dataclass(frozen=True)
class Anchor:
    kind: str  # path | identifier | target | fetch | cmake_option | extension_module |
    #            registry_key | constant
    value: str
    matched: bool
    # stale: files that show the feature (register its keys, define its identifiers, import
    # its packages) outside its matched paths -- where the code may have moved
    candidates: tuple[str, ...] = ()

    def __str__(self) -> str:
        text = f"{self.kind} {self.value}"
        return f"{text} (candidates: {', '.join(self.candidates)})" if self.candidates \
            else text


@dataclass(frozen=True)
class FeatureAnchors:
    feature: str
    anchors: tuple[Anchor, ...]

    @property
    def matched(self) -> int:
        return sum(1 for a in self.anchors if a.matched)

    @property
    def total(self) -> int:
        return len(self.anchors)

    @property
    def stale(self) -> list[Anchor]:
        return [a for a in self.anchors if not a.matched]

    @property
    def out_of_date(self) -> bool:
        """Most of the feature's anchors match nothing: the profile may not know this tree."""
        return self.total > 0 and self.matched < FLAG_BELOW * self.total

    def summary(self) -> str:
        """``flashmla: anchors 11/12; stale: path sgl-kernel/cmake/flashmla.cmake``."""
        text = f"{self.feature}: anchors {self.matched}/{self.total}"
        if self.stale:
            text += "; stale: " + ", ".join(str(a) for a in self.stale)
        return text


def feature_anchors(profile: Profile | None, features: Iterable[Feature], index: ModuleIndex,
                    files: Iterable[str], project: CMakeProject) -> list[FeatureAnchors]:
    """The anchors of each of ``features`` and whether this tree has them."""
    if profile is None:
        return []
    paths = list(files)
    names: set[str] = set()
    strings: set[str] = set()
    imported: set[str] = set()  # what the tree imports: a package the build installs too
    # path -> what the file shows: the names it defines, imports and spells as values
    shown: dict[str, tuple[set[str], set[str], set[str]]] = {}
    for mod in index.modules.values():
        facts = mod.facts
        mine: tuple[set[str], set[str], set[str]] = (set(), set(), set())
        for fact in facts.imports:
            absolute = index.absolute(mod.name, fact)
            if absolute:
                parts = absolute.split(".")
                mine[1].update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        mine[0].update(d.name for d in facts.definitions)
        mine[0].update(facts.methods)
        mine[0].update(mod.bindings)
        mine[2].update(p.value for p in facts.produced)
        mine[2].update(v for lit in facts.literals for e in lit.entries
                       for v in (e.key, e.value) if v)
        mine[2].update(v for d in facts.displays for e in d.entries
                       for v in (e.key, e.value) if v)
        mine[2].update(a for d in facts.definitions for dec in d.decorators
                       for a in dec.string_args)
        mine[2].update(a for c in facts.calls for a in c.string_args if a)
        mine[2].update(v for c in facts.calls for _k, v in c.keyword_args)
        names |= mine[0]
        imported |= mine[1]
        strings |= mine[2]
        shown[mod.path] = mine
    targets = {t.name for t in project.targets}
    fetches = {f.name for f in project.fetches}
    options = {o.name for o in project.options}
    # modules, packages, extensions, and what the tree imports (a package the build installs
    # with install(DIRECTORY), such as FA4's flash_attn_origin.cute)
    modules = set(index.modules) | set(index.extensions) | set(index.packages) | imported
    out: list[FeatureAnchors] = []
    for f in features:
        anchors: list[Anchor] = []
        evidence = _evidence(f, shown)
        anchors.extend(Anchor("path", " | ".join(g), any_path_matches(paths, tuple(g)))
                       for g in f.anchors_of("paths"))
        anchors.extend(Anchor("identifier", " | ".join(g),
                              any_identifier_matches(names, tuple(g)))
                       for g in f.anchors_of("identifiers"))
        anchors.extend(Anchor("target", " | ".join(g), any(t in targets for t in g))
                       for g in f.anchors_of("targets"))
        anchors.extend(Anchor("fetch", " | ".join(g), any(x in fetches for x in g))
                       for g in f.anchors_of("fetches"))
        anchors.extend(Anchor("cmake_option", o, o in options) for o in f.cmake_options)
        anchors.extend(Anchor("extension_module", " | ".join(g), any(m in modules for m in g))
                       for g in f.anchors_of("extension_modules"))
        keys = sorted({str(k) for ks in f.registry_keys.values() for k in ks})
        anchors.extend(Anchor("registry_key", k, k in strings) for k in keys)
        for c in f.constants:
            if c.startswith("env:"):
                continue  # an environment variable: nothing in the tree to match
            head = c.rsplit(".", 1)[0]
            last = c.rsplit(".", 1)[-1]
            found = (any_identifier_matches(names, (last,)) if "*" in c
                     else index.resolve_dotted(c).kind not in ("unresolved", "external")
                     or (index.is_module(head) and last in names))
            anchors.append(Anchor("constant", c, found))
        out.append(FeatureAnchors(f.name, tuple(
            a if a.matched or a.kind not in _RENAMED else
            Anchor(a.kind, a.value, False, tuple(p for p in evidence
                                                 if not any_path_matches([p], f.paths))
                   [:CANDIDATES])
            for a in anchors)))
    return out


# kinds of anchor a rename makes stale: what moved may show in another file
_RENAMED = frozenset({"path", "identifier", "extension_module"})


def _evidence(feature: Feature, shown: dict[str, tuple[set[str], set[str], set[str]]]
              ) -> list[str]:
    """The files that show ``feature`` -- import one of its packages (extension modules),
    or define one of its identifiers -- the files importing a package first; by path."""
    idents = tuple(i for g in feature.anchors_of("identifiers") for i in g)
    packages = {m for g in feature.anchors_of("extension_modules") for m in g}
    ranked: list[tuple[int, str]] = []
    for path, (defined, imports, _spelled) in shown.items():
        if packages & imports:
            ranked.append((0, path))
        elif idents and any_identifier_matches(defined, idents):
            ranked.append((1, path))
    return [p for _rank, p in sorted(ranked)]
