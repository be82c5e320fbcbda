"""Decide stage: what a profile and its drops decide before the graph exists
(``analyzer/decide/profile_facts.py``: the dropped features, their registry keys, what guard
folding may assume) and the options handed to the graph stage (``analyzer/decide/options.py``).
The profile below is small; every expectation is read off it."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from analyzer.config.profile import load_profile_text
from analyzer.config.types import Profile
from analyzer.decide.options import GraphOptions
from analyzer.decide.profile_facts import graph_options, guard_context, profile_use
from tests.helpers import module_index

PROFILE = textwrap.dedent("""
    name = "t"

    [[registries]]
    name = "backends"
    kind = "decorator"
    target = "pkg.registry.register"

    [[registries]]
    name = "choices"
    kind = "choices"
    target = "pkg.args.CHOICES"

    [constants]
    "pkg.utils.is_npu" = true
    "pkg.utils.is_cuda" = true

    [domains]
    "*.attention_backend" = "backends"
    "*.sampling_backend" = "choices"

    [features.fa3]
    description = "fa3"
    extension_modules = ["pkg.flash_ops"]

    [features.fa3.registry_keys]
    backends = ["fa3"]
    choices = ["fa3"]

    [features.ascend]
    description = "npu"
    constants = { "pkg.utils.is_npu" = false }

    [features.ascend.registry_keys]
    backends = ["ascend", "npu"]

    [features.fa4]
    description = "fa4"
    extension_modules = ["pkg.fa4_ops"]

    [features.fa4.registry_keys]
    backends = ["fa4"]

    [[registries]]
    name = "old"
    kind = "decorator"
    target = "pkg.registry.gone"

    [[plugin_families]]
    name = "models"
    package = "pkg.models"

    [[plugin_families]]
    name = "processors"
    package = "pkg.procs"
    select = "companion"
    companion_of = "pkg.models"

    [[plugin_families]]
    name = "tools"
    package = "pkg.tools"
    select = "all"

    [[plugin_families]]
    name = "gone"
    package = "pkg.gone"
    """).lstrip("\n")
# the lines (in PROFILE, counted from its first line `name = "t"`) of the header of the two
# tables that match nothing in TREE: registry "old" and plugin family "gone"
OLD_REGISTRY_LINE = 43
GONE_FAMILY_LINE = 63

TREE = {
    "pkg/__init__.py": "",
    "pkg/registry.py": "def register(name):\n    return lambda f: f\n",
    "pkg/args.py": 'CHOICES = ["triton", "fa3"]\n',
    "pkg/models/__init__.py": "",
    "pkg/models/llama.py": "",
    "pkg/procs/__init__.py": "",
    "pkg/tools/__init__.py": "",
}


@pytest.fixture
def profile() -> Profile:
    return load_profile_text(PROFILE, "t.toml")


def test_dropped_and_kept_features(profile: Profile) -> None:
    use = profile_use(profile, ("ascend", "fa3"))
    assert [f.name for f in use.features] == ["ascend", "fa3"]  # in the order of the drops
    assert [f.name for f in use.kept_features] == ["fa4"]
    assert use.blocked_keys == {}


def test_no_profile_drops_nothing() -> None:
    use = profile_use(None, ())
    assert (use.features, use.kept_features) == ([], [])
    assert use.all_dropped_keys() == frozenset()
    assert guard_context(use, ()) is None


def test_dropped_keys_per_registry_and_blocked_keys(profile: Profile) -> None:
    use = profile_use(profile, ("fa3", "ascend"))
    assert use.dropped_keys("backends") == {"fa3", "ascend", "npu"}
    assert use.dropped_keys("choices") == {"fa3"}
    assert use.dropped_keys("unknown") == frozenset()
    assert use.all_dropped_keys() == {"fa3", "ascend", "npu"}
    # a key live code still produces stays selectable: it is no longer dropped
    use.blocked_keys["fa3"] = "pkg/args.py:3: backend = 'fa3'"
    assert use.dropped_keys("backends") == {"ascend", "npu"}
    assert use.dropped_keys("choices") == frozenset()
    assert use.all_dropped_keys() == {"ascend", "npu"}


def test_guard_context_of_the_drops(profile: Profile) -> None:
    ctx = guard_context(profile_use(profile, ("fa3", "ascend")), ())
    assert ctx is not None
    # ascend's constant wins over the profile's own
    assert ctx.constants == {"pkg.utils.is_npu": False, "pkg.utils.is_cuda": True}
    # only domains over registries that lose keys; choices loses fa3
    assert dict(ctx.domains) == {"*.attention_backend": {"fa3", "ascend", "npu"},
                                 "*.sampling_backend": {"fa3"}}
    assert ctx.dead_imports == {"pkg.flash_ops"}  # fa4 is not dropped: its module stays


def test_guard_context_without_drops(profile: Profile) -> None:
    ctx = guard_context(profile_use(profile, ()), ())
    assert ctx is not None
    assert ctx.constants == {"pkg.utils.is_npu": True, "pkg.utils.is_cuda": True}
    assert ctx.domains == ()  # nothing dropped: no domain folds
    assert ctx.dead_imports == frozenset()


def test_keeping_a_feature_unfixes_its_constants(profile: Profile) -> None:
    ctx = guard_context(profile_use(profile, ("fa3",)), ("ascend",))
    assert ctx is not None
    assert ctx.constants == {"pkg.utils.is_cuda": True}


def test_graph_options_default_to_no_decision() -> None:
    options = GraphOptions()
    assert (options.dead_lines, options.registries) == ({}, {})
    assert options.restricted_families == {} and options.frozen_imports == frozenset()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.dead_lines = {"m": ((1, 2),)}  # type: ignore[misc]
    # each value owns its dicts
    GraphOptions().dead_lines["m"] = ((1, 2),)
    assert GraphOptions().dead_lines == {}


def test_graph_options_of_the_profile(profile: Profile, tmp_path) -> None:
    index = module_index(tmp_path, TREE)
    options, stale = graph_options(profile_use(profile, ("fa3", "ascend")), index,
                                   {"pkg.args": ((1, 1),)}, frozenset({"scripts.run"}))
    # decorator registries only, with their key argument and the keys they lose
    assert options.registries == {"pkg.registry.register": (0, {"fa3", "ascend", "npu"}),
                                  "pkg.registry.gone": (0, frozenset())}
    # roots and companion families are restricted; "all" keeps every module anyway
    assert set(options.restricted_families) == {"pkg.models", "pkg.procs", "pkg.gone"}
    assert options.dead_lines == {"pkg.args": ((1, 1),)}
    assert options.frozen_imports == {"scripts.run"}
    assert stale == [
        f"t.toml:{GONE_FAMILY_LINE}: plugin family pkg.gone matches no package",
        f"t.toml:{OLD_REGISTRY_LINE}: registry old target pkg.registry.gone matches no "
        "definition"]


def test_graph_options_without_a_profile(tmp_path) -> None:
    index = module_index(tmp_path, TREE)
    options, stale = graph_options(profile_use(None, ()), index, {"pkg.args": ((1, 1),)})
    assert options == GraphOptions(dead_lines={"pkg.args": ((1, 1),)})
    assert stale == []
