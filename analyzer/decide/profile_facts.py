"""Analysis stage: turn a profile's declarations into graph options, roots and keep-nodes.

The profile (config stage) says what the code cannot: entry points, registries and which of
their keys belong to dropped features, plugin families, never-delete entries. This module
maps those names onto the module index and the graph, and reports declarations that match
nothing (stale), so an allow-list cannot rot silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analyzer.config.profile import effective_constants
from analyzer.config.types import Feature, Profile
from analyzer.decide.guards import GuardContext
from analyzer.decide.options import GraphOptions
from analyzer.extract.python_branches import Cond
from analyzer.resolve.python import ModuleIndex


@dataclass
class ProfileUse:
    profile: Profile | None
    drops: tuple[str, ...]
    features: list[Feature] = field(default_factory=list)  # the dropped ones
    kept_features: list[Feature] = field(default_factory=list)  # the profile's others
    stale: list[str] = field(default_factory=list)  # declarations that match nothing
    # registry keys of dropped features that live code still produces as a value
    # (``self.attention_backend = "fa3"``): key -> "path:line: what"; they stay selectable
    blocked_keys: dict[str, str] = field(default_factory=dict)

    def dropped_keys(self, registry: str) -> frozenset[str]:
        return frozenset(k for f in self.features for k in f.registry_keys.get(registry, ())
                         if k not in self.blocked_keys)

    def dropped_int_keys(self, registry: str) -> frozenset[int]:
        """Integer keys of ``registry`` the drops own (blocked ones under their decimal text)."""
        return frozenset(k for f in self.features for k in f.registry_int_keys.get(registry, ())
                         if str(k) not in self.blocked_keys)

    def dropped_values(self, registry: str) -> frozenset[str | int]:
        """The dropped keys of ``registry``, strings and integers (a domain's values)."""
        return self.dropped_keys(registry) | self.dropped_int_keys(registry)

    def int_domains(self) -> tuple[tuple[str, frozenset[int]], ...]:
        """(domain pattern, dropped integer keys of its registry), for domains with some."""
        domains = self.profile.domains if self.profile is not None else ()
        return tuple((d.pattern, ints) for d in domains
                     if (ints := self.dropped_int_keys(d.registry)))

    def key_selectors(self) -> dict[str, frozenset[str]]:
        """Dropped string key -> the last names of the domains its registries select by
        (``*.attention_backend`` -> ``attention_backend``): where a produced value must go to
        select it. The registries of one key name one choice (the attention backend's choice
        list, its dict of handlers, its decorator registry): the domains of those that have
        one stand for all. A key none of whose registries has a domain is absent (its
        selector is unknown). A ``probed`` registry selects by no value (its entries' probes
        decide): it stands with no name, so a key only such registries hold has none."""
        if self.profile is None:
            return {}
        by_registry: dict[str, set[str]] = {r.name: set() for r in self.profile.registries
                                            if r.probed}
        for d in self.profile.domains:
            by_registry.setdefault(d.registry, set()).add(d.pattern.rpartition(".")[2])
        out: dict[str, set[str]] = {}
        for f in self.features:
            for registry, keys in f.registry_keys.items():
                for k in keys:
                    if registry in by_registry:
                        out.setdefault(k, set()).update(by_registry[registry])
        return {k: frozenset(v) for k, v in out.items()}

    def all_dropped_keys(self) -> frozenset[str]:
        return frozenset(k for f in self.features for keys in f.registry_keys.values()
                         for k in keys if k not in self.blocked_keys)


def profile_use(profile: Profile | None, drops: tuple[str, ...]) -> ProfileUse:
    features = [profile.features[d] for d in drops] if profile else []
    kept = [f for n, f in profile.features.items() if n not in drops] if profile else []
    return ProfileUse(profile, drops, features, kept)


def graph_options(use: ProfileUse, index: ModuleIndex,
                  dead_lines: dict[str, tuple[tuple[int, int], ...]] | None = None,
                  frozen_imports: frozenset[str] = frozenset(), keep: tuple[str, ...] = ()
                  ) -> tuple[GraphOptions, list[str]]:
    """The graph stage's options, and the profile's declarations they found stale."""
    profile = use.profile
    stale: list[str] = []
    if profile is None:
        return GraphOptions(dead_lines=dead_lines or {}, frozen_imports=frozen_imports), stale
    registries = {r.target: (r.key_arg, use.dropped_keys(r.name))
                  for r in profile.registries if r.kind == "decorator"}
    families = {f.package: f.name for f in profile.plugin_families
                if f.select in ("roots", "companion")}
    for fam in profile.plugin_families:
        if not index.is_module(fam.package):
            stale.append(f"{profile.source}:{fam.line}: plugin family {fam.package} "
                             "matches no package")
    for reg in profile.registries:
        if reg.kind != "values" and index.resolve_dotted(reg.target).kind in ("unresolved",
                                                                             "external"):
            stale.append(f"{profile.source}:{reg.line}: registry {reg.name} target "
                             f"{reg.target} matches no definition")
    droppable = tuple(sorted({p for f in use.features for p in f.identifiers}
                             | set(platform_methods_off(use, keep))))
    return GraphOptions(dead_lines=dead_lines or {}, registries=registries,
                        restricted_families=families, frozen_imports=frozen_imports,
                        droppable=droppable), stale


def dropped_enum_members(use: ProfileUse, index: ModuleIndex
                         ) -> tuple[frozenset[str], frozenset[str]]:
    """Qualified names of the members of ``enum`` registries under dropped keys, and the
    predicate methods that test for one of them (``def is_npu(self): return self ==
    Backend.NPU``) that no other class of the tree defines."""
    members: set[str] = set()
    predicates: set[str] = set()
    profile = use.profile
    for reg in profile.registries if profile is not None else ():
        dropped = use.dropped_keys(reg.name)
        if reg.kind != "enum" or not dropped:
            continue
        module, _, cls = reg.target.rpartition(".")
        mod = index.modules.get(module)
        lit = next((x for x in mod.facts.literals if x.name == cls and x.kind == "enum"),
                   None) if mod is not None else None
        if mod is None or lit is None:
            continue
        names = {e.key for e in lit.entries if e.key and (
            e.key in dropped or e.value in dropped or e.key.lower() in dropped)}
        members.update(f"{reg.target}.{n}" for n in names)
        for m in mod.facts.method_defs:
            r = m.returns
            if m.cls == cls and r is not None and r.kind == "cmp" and r.value in ("==", "is") \
                    and len(r.children) == 2 and r.children[0] == Cond("name", "self") \
                    and r.children[1].kind == "name" \
                    and r.children[1].value in {f"{cls}.{n}" for n in names}:
                predicates.add(m.name)
    if predicates and profile is not None:  # another class's method of that name could be
        # the one called
        index.sought_by_name.update(predicates)
        others = {m.name for mod in index.modules.values() for m in mod.facts.method_defs
                  if f"{mod.name}.{m.cls}" not in {r.target for r in profile.registries}}
        predicates -= others
    return frozenset(members), frozenset(predicates)


def platform_methods_off(use: ProfileUse, keep: tuple[str, ...] = ()) -> list[str]:
    """Method patterns of ``[platform_methods]`` whose platform constant is False on the
    target (``forward_hip`` on CUDA)."""
    profile = use.profile
    if profile is None or not profile.platform_methods:
        return []
    constants = {c.name: c.value for c in effective_constants(profile, use.drops, keep)}
    return sorted(m for m, c in profile.platform_methods.items() if constants.get(c) is False)


def guard_context(use: ProfileUse, keep: tuple[str, ...],
                  gone: frozenset[str] = frozenset(),
                  forced: dict[tuple[str, int], str] | None = None,
                  index: ModuleIndex | None = None) -> GuardContext | None:
    """What guard folding may assume: the profile's constants (those of dropped features
    win), string domains over dropped registry keys, and modules that will not exist:
    extension modules of dropped features that will not be built, and ``gone`` (the
    dropped features' own modules, which the plan means to delete)."""
    profile = use.profile
    if profile is None:
        return None
    constants = {c.name: c.value for c in effective_constants(profile, use.drops, keep)}
    domains = tuple((d.pattern, use.dropped_values(d.registry)) for d in profile.domains)
    dead = frozenset(m for f in use.features for m in f.extension_modules) | gone
    members, predicates = dropped_enum_members(use, index) if index is not None else (
        frozenset(), frozenset())
    return GuardContext(constants, tuple(d for d in domains if d[1]), dead,
                        forced=dict(forced or {}), dropped_members=members,
                        false_predicates=predicates)
