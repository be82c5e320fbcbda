"""Config stage: a config that extends a profile (``extends`` in ``depgraph.toml``).

A project's ``depgraph.toml`` (or ``[tool.depgraph]``) adds to a base profile instead of
replacing it: by default the built-in profile that detects the scanned tree, or the one its
``extends`` key names (a built-in name or another TOML file); ``extends = false`` opts out.
The merge, documented in ``docs/profiles.md`` ("Extending a profile"):

- scalar keys (``name``, ``description``) and the scan options: the config's value wins;
- lists (``entry_points``, ``test_paths``, ``default_drops``, ``keep_targets``,
  ``system_libraries``, ``never_delete``, ``dynamic_imports``): the base's, then the config's,
  repeats dropped;
- tables (``constants``, ``domains``, ``platform_methods``): merged by key, the config's
  value wins;
- ``registries`` and ``plugin_families``: by ``name``, the config's entry replaces the base's;
- ``features``: by name; a feature both define is merged field by field by the same rules
  (its lists appended, its tables merged by key, its description the config's).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TypeVar

from analyzer.config.types import Feature, Profile

T = TypeVar("T")


def _append(base: Iterable[T], more: Iterable[T]) -> tuple[T, ...]:
    return tuple(dict.fromkeys([*base, *more]))


def _by_name(base: Iterable[T], more: Iterable[T], key: str) -> tuple[T, ...]:
    out: dict[str, T] = {getattr(x, key): x for x in base}
    for x in more:
        out[getattr(x, key)] = x
    return tuple(out.values())


def merge_feature(base: Feature, more: Feature) -> Feature:
    keys = dict(base.registry_keys)
    for registry, names in more.registry_keys.items():
        keys[registry] = _append(keys.get(registry, ()), names)
    ints = dict(base.registry_int_keys)
    for registry, values in more.registry_int_keys.items():
        ints[registry] = _append(ints.get(registry, ()), values)
    return dataclasses.replace(
        more,
        description=more.description or base.description,
        registry_keys=keys, registry_int_keys=ints,
        paths=_append(base.paths, more.paths),
        identifiers=_append(base.identifiers, more.identifiers),
        constants={**base.constants, **more.constants},
        cmake_options={**base.cmake_options, **more.cmake_options},
        targets=_append(base.targets, more.targets),
        extension_modules=_append(base.extension_modules, more.extension_modules),
        fetches=_append(base.fetches, more.fetches),
        requires=_append(base.requires, more.requires))


def extend(base: Profile, more: Profile, named: bool, described: bool) -> Profile:
    """``more`` (a config) on top of ``base``; ``named``/``described``: whether the config
    sets ``name``/``description`` itself (else the base's are kept)."""
    features = dict(base.features)
    for name, feature in more.features.items():
        features[name] = merge_feature(features[name], feature) if name in features \
            else feature
    return dataclasses.replace(
        more,
        name=more.name if named else base.name,
        description=more.description if described else base.description,
        detect=base.detect,
        extends=base.source,
        entry_points=_append(base.entry_points, more.entry_points),
        plugin_families=_by_name(base.plugin_families, more.plugin_families, "name"),
        registries=_by_name(base.registries, more.registries, "name"),
        constants=_by_name(base.constants, more.constants, "name"),
        domains=_by_name(base.domains, more.domains, "pattern"),
        features=features,
        default_drops=_append(base.default_drops, more.default_drops),
        keep_targets=_append(base.keep_targets, more.keep_targets),
        never_delete=_append(base.never_delete, more.never_delete),
        dynamic_imports=_append(base.dynamic_imports, more.dynamic_imports),
        test_paths=_append(base.test_paths, more.test_paths),
        system_libraries=_append(base.system_libraries, more.system_libraries),
        platform_methods={**base.platform_methods, **more.platform_methods})
