"""Profiles (config stage): loading, strict validation with file:line, search order, drops.

Expectations are written by hand from sample_repos/mini_sglang/depgraph.toml and the small TOML
strings below (line numbers counted in them).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from analyzer.config.profile import (
    builtin_names,
    builtin_profile,
    effective_cmake_options,
    effective_constants,
    load_profile_file,
    load_profile_text,
    merge_drops,
    select_profile,
)
from analyzer.config.types import Constant, Domain, PluginFamily, Profile, ProfileError, Registry
from analyzer.config.validate import Locator
from tests.helpers import MINI_SGLANG

SAMPLE = MINI_SGLANG


def _load(text: str) -> Profile:
    return load_profile_text(textwrap.dedent(text).lstrip("\n"), "p.toml")


def _error(text: str) -> str:
    with pytest.raises(ProfileError) as info:
        _load(text)
    message = str(info.value)
    assert "\n" not in message
    return message


# --------------------------------------------------------------------------- sample profile


def test_sample_profile_exact() -> None:
    p = load_profile_file(SAMPLE / "depgraph.toml")
    assert p.name == "mini_sglang"
    assert p.entry_points == ("minisgl.cli.main:main", "minisgl.launch_server")
    assert p.plugin_families == (PluginFamily("models", "minisgl.srt.models", "roots", False,
                                              "", 16),)
    assert p.registries == (
        Registry("attention_backends", "decorator",
                 "minisgl.srt.layers.attention.attention_registry.register_attention_backend",
                 0, 21),
        Registry("attention_backend_choices", "choices",
                 "minisgl.srt.server_args.ATTENTION_BACKEND_CHOICES", 0, 26),
    )
    assert p.constants == (Constant("minisgl.srt.utils.common.is_npu", False, 32),
                           Constant("minisgl.srt.utils.common.is_cuda", True, 33))
    assert p.domains == (Domain("*.attention_backend", "attention_backends", 36),)
    assert p.default_drops == ("fa3", "flashmla", "ascend")
    assert p.keep_targets == ("common_ops",)
    assert set(p.features) == {"fa3", "flashmla", "ascend"}
    fa3 = p.features["fa3"]
    assert fa3.registry_keys == {"attention_backends": ("fa3",),
                                 "attention_backend_choices": ("fa3",)}
    assert fa3.paths == ("python/minisgl/srt/layers/attention/flashattention_backend.py",
                         "sgl-kernel/csrc/flash_extension.cc", "sgl-kernel/csrc/flash/**",
                         "sgl-kernel/python/mini_kernel/flash_attn.py")
    assert fa3.cmake_options == {"ENABLE_FA3": False}
    assert fa3.targets == ("flash_ops",)
    assert fa3.extension_modules == ("mini_kernel.flash_ops",)
    assert fa3.line == 38
    mla = p.features["flashmla"]
    assert mla.registry_keys["attention_backends"] == ("flashmla",)
    assert "sgl-kernel/cmake/flashmla.cmake" in mla.paths
    assert "sgl-kernel/csrc/flashmla*" in mla.paths
    assert (mla.targets, mla.fetches, mla.extension_modules) == (
        ("flashmla_ops",), ("repo-flashmla",), ("mini_kernel.flashmla_ops",))
    ascend = p.features["ascend"]
    assert ascend.paths == ("python/minisgl/srt/hardware_backend/npu/**",)
    assert ascend.constants == {"minisgl.srt.utils.common.is_npu": False}
    assert ascend.registry_keys["attention_backends"] == ("ascend",)
    # every path of the sample's features names something real
    for feature in p.features.values():
        for glob in feature.paths:
            assert list(SAMPLE.glob(glob)), glob


# --------------------------------------------------------------------------- built-in sglang


def test_builtin_sglang() -> None:
    assert "sglang" in builtin_names()
    p = builtin_profile("sglang")
    assert p.source == "builtin:sglang"
    assert p.default_drops == ("fa3", "fa4", "flashmla", "ascend")
    for name in ("fa3", "fa4", "flashmla", "ascend", "nsa", "aiter", "intel_amx", "xpu", "wave",
                 "dual_chunk_flash_attn"):
        assert name in p.features
    reg = p.registry("attention_backends")
    assert reg is not None and reg.kind == "decorator"
    assert reg.target.endswith("attention_registry.register_attention_backend")
    keys = {n: f.registry_keys["attention_backends"] for n, f in p.features.items()
            if "attention_backends" in f.registry_keys}
    # the diffusion server is no attention backend; dual chunk goes whenever fa3 goes
    assert "multimodal_gen" not in keys
    assert p.features["dual_chunk_flash_attn"].requires == ("fa3",)
    assert keys["fa3"] == ("fa3",) and keys["fa4"] == ("fa4",)
    assert keys["flashmla"] == ("flashmla",) and keys["ascend"] == ("ascend",)
    assert keys["xpu"] == ("intel_xpu",)
    mla = p.features["flashmla"]
    assert "cutlass_mla" not in str(mla) and "trtllm_mla" not in str(mla)
    assert not any("deepseek_common" in g for g in mla.paths)  # the MLA architecture stays
    assert mla.targets == ("flashmla_ops",) and mla.fetches == ("repo-flashmla",)
    assert p.features["fa3"].cmake_options == {"SGL_KERNEL_ENABLE_FA3": False}
    assert p.features["fa3"].targets == ("flash_ops",)
    assert "repo-flash-attention" not in p.features["fa3"].fetches  # shared with common_ops
    constants = {c.name: c.value for c in p.constants}
    assert constants["sglang.srt.utils.common.is_cuda"] is True
    assert constants["sglang.srt.utils.common.is_npu"] is False
    assert constants["*._is_hip"] is False and constants["env:SGLANG_USE_AITER"] is False
    assert ("models", "sglang.srt.models", "roots") in {
        (f.name, f.package, f.select) for f in p.plugin_families}
    assert "sglang.cli.main:main" in p.entry_points
    assert {d.pattern for d in p.domains} >= {"*.attention_backend",
                                              "*.decode_attention_backend"}


# --------------------------------------------------------------------------- errors


# Each bad profile (line numbers counted in the TOML after dedent) with the start of its one-line
# message and, when there is a close name, the suggestion it makes.
ERRORS = [
    pytest.param("""
        name = "x"
        registries = [
        [features.fa3
        """, "p.toml:3: invalid TOML", None, id="invalid-toml-line"),
    pytest.param("""
        name = "x"

        registrys = []
        """, "p.toml:3: unknown key 'registrys'", "registries", id="unknown-top-key"),
    pytest.param("""
        [[registries]]
        name = "a"
        kind = "dict"
        target = "m.A"

        [[registries]]
        name = "b"
        kind = "dict"
        targte = "m.B"
        """, "p.toml:9: unknown key 'targte' in registries[1]", "target",
        id="unknown-key-in-array-of-tables"),
    pytest.param("""
        [features.fa3]
        description = "x"
        path = ["a.py"]
        """, "p.toml:3: unknown key 'path' in features.fa3", "paths",
        id="unknown-key-in-feature-table"),
    pytest.param("""
        name = "x"
        detect = "python/x.py"
        """, "p.toml:2: detect must be an array of strings, got string", None,
        id="type-string-for-array"),
    pytest.param("""
        entry_points = [
            "a",
            3,
        ]
        """, "p.toml:3: entry_points[1] must be a string, got integer", None,
        id="type-integer-in-string-array"),
    pytest.param("""
        [[plugin_families]]
        package = "m"
        recursive = "yes"
        """, "p.toml:3: plugin_families[0].recursive must be a boolean", None,
        id="type-string-for-boolean"),
    pytest.param("""
        [[registries]]
        name = "a"
        kind = "decorator"
        target = "m.f"
        key_arg = true
        """, "p.toml:5: registries[0].key_arg must be an integer, got boolean", None,
        id="type-boolean-for-integer"),
    pytest.param("""
        [constants]
        "m.is_npu" = false
        "m.ratio" = 0.5
        """, 'p.toml:3: constants."m.ratio" must be a boolean, integer or string', None,
        id="type-float-constant"),
    pytest.param("""
        [features.fa3]
        cmake_options = { ENABLE_FA3 = ["OFF"] }
        """, "p.toml:2: features.fa3.cmake_options.ENABLE_FA3 must be a boolean or a string",
        None, id="type-list-cmake-option"),
    pytest.param("""
        [constants]
        m.is_npu = false
        """, "p.toml:2: constants.m is a table: quote dotted constant names", None,
        id="unquoted-dotted-constant"),
    pytest.param("""
        [[registries]]
        name = "a"
        kind = "decorater"
        target = "m.f"
        """, "p.toml:3: registries[0].kind must be one of decorator, dict, choices",
        "decorator", id="bad-registry-kind"),
    pytest.param("""
        [[registries]]
        name = "a"
        kind = "dict"
        """, "p.toml:1: registries[0] needs 'target'", None, id="registry-needs-target"),
    pytest.param("""
        [[registries]]
        name = "attention_backends"
        kind = "decorator"
        target = "m.register"

        [features.fa3]
        description = "x"

        [features.fa3.registry_keys]
        attention_backend = ["fa3"]
        """, "p.toml:10: unknown registry 'attention_backend'", "attention_backends",
        id="feature-unknown-registry"),
    pytest.param("""
        [features.fa3]
        registry_keys = { nope = ["fa3"] }
        """, "p.toml:2: unknown registry 'nope'; known registries: none", None,
        id="feature-unknown-registry-inline"),
    pytest.param("""
        [[registries]]
        name = "attn"
        kind = "choices"
        target = "m.CHOICES"

        [domains]
        "*.attention_backend" = "attn"
        "*.sampling_backend" = "sampling"
        """, "p.toml:8: unknown registry 'sampling'", None, id="domain-unknown-registry"),
    pytest.param("""
        default_drops = [
            "fa3",
            "fa5",
        ]

        [features.fa3]
        description = "x"
        """, "p.toml:3: unknown feature 'fa5' (did you mean 'fa3'?)", None,
        id="default-drops-unknown-feature"),
    pytest.param("""
        [[never_delete]]
        path = "a.py"
        reason = "needed"

        [[never_delete]]
        symbol = "m:f"
        """, "p.toml:5: never_delete[1] needs a non-empty 'reason'", None,
        id="never-delete-without-reason"),
    pytest.param("""
        [[never_delete]]
        path = "a.py"
        symbol = "m:f"
        reason = "r"
        """, "p.toml:1: never_delete[0] has both 'path' and 'symbol'", None,
        id="never-delete-path-and-symbol"),
    pytest.param("""
        never_delete = [
            { path = "a.py", reason = "r" },
            { reason = "r" },
        ]
        """, "p.toml:3: never_delete[1] has neither 'path' nor 'symbol'", None,
        id="never-delete-neither"),
    pytest.param("""
        [[plugin_families]]
        name = "models"
        package = "m.models"
        select = "root"
        """, "p.toml:4: plugin_families[0].select must be one of roots, all", "roots",
        id="bad-select"),
    pytest.param("""
        [[plugin_families]]
        package = "m.processors"
        select = "companion"
        """, "p.toml:3: plugin_families[0]: select = \"companion\" needs companion_of", None,
        id="companion-without-companion-of"),
    pytest.param("""
        registries = [
            { name = "a", kind = "dict", target = "m.A" },
            { name = "a", kind = "dict", target = "m.B" },
        ]
        """, "p.toml:3: duplicate registry 'a'", None, id="duplicate-registry"),
    pytest.param("""
        registries = [{ name = "backends", kind = "dict", target = "m.B" }]
        [features.fa3.registry_keys]
        backends = [3]
        """, "p.toml:3: features.fa3.registry_keys.backends[0] must be a string, got integer",
        None, id="integer-key-of-a-dict-registry"),
    pytest.param("""
        registries = [{ name = "fa_versions", kind = "values" }]
        [features.fa3.registry_keys]
        fa_versions = [3, true]
        """, "p.toml:3: features.fa3.registry_keys.fa_versions[1] must be a string or an "
        "integer, got boolean", None, id="boolean-key-of-a-values-registry"),
]


def test_integer_keys_of_a_values_registry() -> None:
    p = load_profile_text(textwrap.dedent("""
        registries = [{ name = "fa_versions", kind = "values" }]
        [domains]
        "*.fa_version" = "fa_versions"
        [features.fa3.registry_keys]
        fa_versions = [3, "fa3"]
        """), "p.toml", ())
    fa3 = p.features["fa3"]
    assert fa3.registry_keys == {"fa_versions": ("fa3",)}
    assert fa3.registry_int_keys == {"fa_versions": (3,)}


@pytest.mark.parametrize(("text", "start", "suggestion"), ERRORS)
def test_profile_error(text: str, start: str, suggestion: str | None) -> None:
    msg = _error(text)
    assert msg.startswith(start), msg
    if suggestion is not None:
        assert f"did you mean '{suggestion}'?" in msg


def test_pyproject_table_lines() -> None:
    text = textwrap.dedent("""
        [project]
        name = "demo"

        [tool.depgraph]
        entry_points = ["demo.cli:main"]

        [tool.depgraph.features.x]
        descripton = "typo"
        """).lstrip("\n")
    with pytest.raises(ProfileError) as info:
        load_profile_text(text, "pyproject.toml", ("tool", "depgraph"))
    assert str(info.value).startswith("pyproject.toml:8: unknown key 'descripton' in features.x")
    with pytest.raises(ProfileError, match=r"^x.toml:1: no \[tool.depgraph\] table"):
        load_profile_text("[project]\n", "x.toml", ("tool", "depgraph"))


def test_locator_shapes() -> None:
    loc = Locator(textwrap.dedent('''
        a = 1  # comment with = sign
        s = """
        b = 2
        """
        [t]
        x.y = "v"
        "q.k" = { m = 1, n = [1,
          2] }
        [[arr]]
        k = 1
        [[arr]]
        k = 2
        [arr.sub]
        z = 3
        list = [
          { name = "a" },  # first
          { name = "b" },
        ]
        ''').lstrip("\n"))
    assert loc.line(("a",)) == 1
    assert ("b",) not in loc.lines  # inside a multi-line string
    assert loc.line(("t", "x", "y")) == 6
    assert loc.line(("t", "q.k", "n", 1)) == 8
    assert loc.line(("arr", 0, "k")) == 10
    assert loc.line(("arr", 1, "k")) == 12
    assert loc.line(("arr", 1, "sub", "z")) == 14
    assert loc.line(("arr", 1, "sub", "list", 1, "name")) == 17
    assert loc.line(("arr", 1, "missing")) == 11  # falls back to the closest recorded prefix


# --------------------------------------------------------------------------- search order


def _fake_sglang(root: Path) -> None:
    srt = root / "python" / "sglang" / "srt"
    (srt / "models").mkdir(parents=True)
    (srt / "layers" / "attention").mkdir(parents=True)
    (srt / "server_args.py").write_text("")
    (srt / "models" / "registry.py").write_text("")


def test_select_explicit_path_and_builtin(tmp_path: Path) -> None:
    own = tmp_path / "custom.toml"
    own.write_text('name = "custom"\n')
    assert select_profile(tmp_path, str(own)).name == "custom"  # type: ignore[union-attr]
    assert select_profile(tmp_path, "sglang").source == "builtin:sglang"  # type: ignore[union-attr]
    with pytest.raises(ProfileError, match="did you mean 'sglang'"):
        select_profile(tmp_path, "sglnag")
    with pytest.raises(ProfileError, match="does not exist"):
        select_profile(tmp_path, str(tmp_path / "missing.toml"))


def test_select_order(tmp_path: Path) -> None:
    _fake_sglang(tmp_path)
    assert select_profile(tmp_path, None).name == "sglang"  # type: ignore[union-attr]
    assert select_profile(tmp_path / "python", None).name == "sglang"  # type: ignore[union-attr]
    (tmp_path / "pyproject.toml").write_text('[tool.depgraph]\nname = "from-pyproject"\n')
    assert select_profile(tmp_path, None).name == "from-pyproject"  # type: ignore[union-attr]
    (tmp_path / "depgraph.toml").write_text('name = "own"\n')
    assert select_profile(tmp_path, None).name == "own"  # type: ignore[union-attr]


def test_select_none(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "plain"\n')
    (tmp_path / "python" / "sglang" / "srt").mkdir(parents=True)
    (tmp_path / "python" / "sglang" / "srt" / "server_args.py").write_text("")
    assert select_profile(tmp_path, None) is None  # detection needs all globs


def test_sample_selected_by_its_depgraph_toml() -> None:
    assert select_profile(SAMPLE, None).name == "mini_sglang"  # type: ignore[union-attr]


# --------------------------------------------------------------------------- drops


def test_merge_drops() -> None:
    p = load_profile_file(SAMPLE / "depgraph.toml")
    assert merge_drops(p, (), ()) == ("fa3", "flashmla", "ascend")
    assert merge_drops(p, (), ("ascend",)) == ("fa3", "flashmla")
    assert merge_drops(p, ("fa3",), ("flashmla",)) == ("fa3", "ascend")
    assert merge_drops(None, (), ()) == ()
    with pytest.raises(ProfileError) as info:
        merge_drops(p, ("flashmal",), ())
    assert "unknown feature 'flashmal'" in str(info.value)
    assert "did you mean 'flashmla'?" in str(info.value)
    assert "known features: ascend, fa3, flashmla" in str(info.value)
    with pytest.raises(ProfileError, match="--keep: unknown feature 'fa4'"):
        merge_drops(p, (), ("fa4",))
    with pytest.raises(ProfileError, match="no profile"):
        merge_drops(None, ("fa3",), ())


def test_effective_constants() -> None:
    p = load_profile_file(SAMPLE / "depgraph.toml")
    names = {c.name: c.value for c in effective_constants(p, merge_drops(p, (), ()))}
    assert names == {"minisgl.srt.utils.common.is_npu": False,
                     "minisgl.srt.utils.common.is_cuda": True}
    kept = effective_constants(p, merge_drops(p, (), ("ascend",)), ("ascend",))
    assert {c.name for c in kept} == {"minisgl.srt.utils.common.is_cuda"}


def test_effective_cmake_options_are_those_of_the_dropped_features() -> None:
    p = load_profile_file(SAMPLE / "depgraph.toml")
    assert effective_cmake_options(p, merge_drops(p, (), ())) == {"ENABLE_FA3": False}
    assert effective_cmake_options(p, merge_drops(p, (), ("fa3",))) == {}
    assert effective_cmake_options(None, ("fa3",)) == {}
    both = _load("""
        [features.a]
        cmake_options = { X = false, Y = true }
        [features.b]
        cmake_options = { X = true, Z = false }
        [features.c]
        cmake_options = { Y = true }
        """)
    # two dropped features forcing X to different values: X is not forced at all
    assert effective_cmake_options(both, ("a", "b", "c")) == {"Y": True, "Z": False}
    assert effective_cmake_options(both, ("a",)) == {"X": False, "Y": True}


def test_builtin_vllm() -> None:
    assert "vllm" in builtin_names()
    p = builtin_profile("vllm")
    assert p.default_drops == ("rocm", "tpu", "xpu", "cpu", "flashmla", "fa3", "fa4")
    assert {"rocm", "tpu", "xpu", "cpu", "flashmla", "fa3", "fa4"} <= set(p.features)
    assert "vllm.entrypoints.cli.main:main" in p.entry_points
    assert ("models", "vllm.model_executor.models", "roots") in {
        (f.name, f.package, f.select) for f in p.plugin_families}
    reg = p.registry("attention_backends")
    assert reg is not None and reg.kind == "enum"
    assert p.features["flashmla"].registry_keys["attention_backends"] == ("FLASHMLA",
                                                                           "FLASHMLA_SPARSE")
    constants = {c.name: c.value for c in p.constants}
    assert constants["vllm.platforms.current_platform.is_cuda"] is True
    assert constants["vllm.platforms.current_platform.is_rocm"] is False
    assert {"benchmarks/**", "examples/**", "tools/**"} <= set(p.test_paths)
    ext = p.registry("extensions")
    assert ext is not None and (ext.kind, ext.target, ext.key_keyword) == (
        "call", "setup.CMakeExtension", "name")
    assert p.features["fa3"].registry_keys["extensions"] == ("vllm.vllm_flash_attn._vllm_fa3_C",)
    assert "torch" in p.system_libraries and "CUDA::*" in p.system_libraries


def test_builtin_vllm_is_detected(tmp_path) -> None:
    from tests.helpers import write_tree

    tree = write_tree(tmp_path / "v", {"vllm/platforms/interface.py": "",
                                       "vllm/model_executor/models/registry.py": "",
                                       "vllm/v1/attention/backends/__init__.py": ""})
    found = select_profile(tree, None)
    assert found is not None and found.name == "vllm"
