"""Analysis stage: how much of what a profile says of each feature this tree still has.

A feature is anchored on names: path globs, identifiers, CMake targets, fetched repositories,
CMake options, extension modules, registry keys and constants. A tree that moved or renamed
things (SGLang's kernel project left ``sgl-kernel/`` in August 2026) leaves some of them
matching nothing: then the profile's knowledge of that feature is out of date, and the plan
may miss what the feature holds. ``feature_anchors`` counts, per feature, the anchors that
match and lists those that do not; a feature whose anchors mostly miss is flagged ahead of
everything else in the terminal, the report and the manifest.
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


@dataclass(frozen=True)
class Anchor:
    kind: str  # path | identifier | target | fetch | cmake_option | extension_module |
    #            registry_key | constant
    value: str
    matched: bool

    def __str__(self) -> str:
        return f"{self.kind} {self.value}"


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
        """``flashmla: 11/12 anchors; stale: path sgl-kernel/cmake/flashmla.cmake``."""
        text = f"{self.feature}: {self.matched}/{self.total} anchors"
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
    for mod in index.modules.values():
        facts = mod.facts
        for fact in facts.imports:
            absolute = index.absolute(mod.name, fact)
            if absolute:
                parts = absolute.split(".")
                imported.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        names.update(d.name for d in facts.definitions)
        names.update(facts.methods)
        names.update(mod.bindings)
        strings.update(p.value for p in facts.produced)
        strings.update(v for lit in facts.literals for e in lit.entries
                       for v in (e.key, e.value) if v)
        strings.update(v for d in facts.displays for e in d.entries
                       for v in (e.key, e.value) if v)
        strings.update(a for d in facts.definitions for dec in d.decorators
                       for a in dec.string_args)
        strings.update(a for c in facts.calls for a in c.string_args if a)
        strings.update(v for c in facts.calls for _k, v in c.keyword_args)
    targets = {t.name for t in project.targets}
    fetches = {f.name for f in project.fetches}
    options = {o.name for o in project.options}
    # modules, packages, extensions, and what the tree imports (a package the build installs
    # with install(DIRECTORY), such as FA4's flash_attn_origin.cute)
    modules = set(index.modules) | set(index.extensions) | set(index.packages) | imported
    out: list[FeatureAnchors] = []
    for f in features:
        anchors: list[Anchor] = []
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
        out.append(FeatureAnchors(f.name, tuple(anchors)))
    return out
