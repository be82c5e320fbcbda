"""A config extends a profile (analyzer/config/extends.py, docs/profiles.md "Extending a
profile"): by default the built-in that detects the tree, or what ``extends`` names;
``extends = false`` opts out. Expectations written by hand from the TOML strings below and the
built-in sglang profile's header (its default_drops, entry points)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from analyzer.config.profile import builtin_profile, select_profile
from analyzer.config.types import ProfileError
from tests.helpers import write_tree

# enough of SGLang for the built-in profile's detect globs, and one model to serve
FAKE_SGLANG = {
    "python/sglang/__init__.py": "",
    "python/sglang/srt/__init__.py": "",
    "python/sglang/srt/server_args.py": "ATTENTION = 'triton'\n",
    "python/sglang/srt/models/__init__.py": "",
    "python/sglang/srt/models/registry.py": "",
    "python/sglang/srt/models/tiny.py": "from sglang.srt import server_args\n\n\n"
                                        "class Tiny:\n    pass\n",
    "python/sglang/srt/layers/__init__.py": "",
    "python/sglang/srt/layers/attention/__init__.py": "",
    "python/sglang/srt/layers/attention/flashmla_backend.py": "class FlashMLABackend:\n"
                                                              "    pass\n",
}
SGLANG_DROPS = ("fa3", "fa4", "flashmla", "ascend")  # the built-in's default_drops


def test_the_builtin_drops_are_what_these_tests_assume() -> None:
    assert builtin_profile("sglang").default_drops == SGLANG_DROPS


def test_a_config_of_options_only_extends_the_detected_builtin(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", {**FAKE_SGLANG, "depgraph.toml": 'roots = ["tiny"]\n'})
    p = select_profile(tree, None)
    assert p is not None
    assert p.name == "sglang"
    assert p.default_drops == SGLANG_DROPS
    assert p.options.roots == ("tiny",)
    # only options on top of a built-in: its entries keep their file and lines
    assert p.source == "builtin:sglang"
    assert p.config == str(tree / "depgraph.toml")
    assert p.features.keys() == builtin_profile("sglang").features.keys()


def test_pyproject_tool_table_extends_too(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", {**FAKE_SGLANG, "pyproject.toml":
                                       '[tool.depgraph]\nroots = ["tiny"]\n'})
    p = select_profile(tree, None)
    assert p is not None and p.default_drops == SGLANG_DROPS


def test_extends_false_opts_out(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", {**FAKE_SGLANG,
                                       "depgraph.toml": 'extends = false\nroots = ["tiny"]\n'})
    p = select_profile(tree, None)
    assert p is not None
    assert p.name == "t"  # the folder's name: a profile of its own
    assert p.default_drops == () and p.features == {}
    assert p.extends == ""


def test_extends_names_a_builtin_on_a_tree_it_does_not_detect(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", {"app/__init__.py": "",
                                       "depgraph.toml": 'extends = "vllm"\n'})
    p = select_profile(tree, None)
    assert p is not None and p.name == "vllm" and p.source == "builtin:vllm"


def test_merge_rules(tmp_path: Path) -> None:
    """Lists appended, tables merged by key (the config wins), registries by name (the
    config's replaces), features by name field by field."""
    write_tree(tmp_path, {
        "base.toml": """\
name = "base"
description = "the base"
entry_points = ["app.a:main"]
default_drops = ["gpu"]
test_paths = ["t/**"]

[[registries]]
name = "backends"
kind = "decorator"
target = "app.reg.register"

[[registries]]
name = "devices"
kind = "values"

[constants]
"app.env.is_gpu" = false
"app.env.fast" = true

[features.gpu]
description = "GPU"
paths = ["app/gpu/**"]
[features.gpu.registry_keys]
backends = ["cuda"]
""",
        "depgraph.toml": """\
extends = "base.toml"
entry_points = ["app.b:main", "app.a:main"]
default_drops = ["npu"]

[[registries]]
name = "backends"
kind = "call"
target = "app.reg.add"

[constants]
"app.env.fast" = false

[features.gpu]
identifiers = ["Cuda*"]
[features.gpu.registry_keys]
backends = ["cudnn"]
devices = ["cuda"]

[features.npu]
requires = ["gpu"]
paths = ["app/npu.py"]
""",
    })
    p = select_profile(tmp_path, None)
    assert p is not None
    assert p.name == "base" and p.description == "the base"  # the config sets neither
    assert p.extends == str(tmp_path / "base.toml")
    assert p.source == str(tmp_path / "depgraph.toml")
    assert p.entry_points == ("app.a:main", "app.b:main")
    assert p.default_drops == ("gpu", "npu")
    assert p.test_paths == ("t/**",)
    assert [(r.name, r.kind, r.target) for r in p.registries] == [
        ("backends", "call", "app.reg.add"), ("devices", "values", "")]
    assert {c.name: c.value for c in p.constants} == {"app.env.is_gpu": False,
                                                      "app.env.fast": False}
    gpu = p.features["gpu"]
    assert gpu.description == "GPU"
    assert gpu.paths == ("app/gpu/**",) and gpu.identifiers == ("Cuda*",)
    assert gpu.registry_keys == {"backends": ("cuda", "cudnn"), "devices": ("cuda",)}
    assert p.features["npu"].requires == ("gpu",)


def test_errors_name_the_config_line(tmp_path: Path) -> None:
    (tmp_path / "depgraph.toml").write_text('roots = []\nextends = "sglnag"\n')
    with pytest.raises(ProfileError, match=r"depgraph.toml:2: extends: no built-in profile "
                                           r"'sglnag' \(did you mean 'sglang'\?\)"):
        select_profile(tmp_path, None)
    (tmp_path / "depgraph.toml").write_text("extends = 3\n")
    with pytest.raises(ProfileError, match=r"depgraph\.toml:1: extends must be"):
        select_profile(tmp_path, None)
    (tmp_path / "depgraph.toml").write_text('extends = "gone.toml"\n')
    with pytest.raises(ProfileError, match=r"gone\.toml does not exist"):
        select_profile(tmp_path, None)
    (tmp_path / "depgraph.toml").write_text('extends = "a.toml"\n')
    (tmp_path / "a.toml").write_text('extends = "depgraph.toml"\n')
    with pytest.raises(ProfileError, match="a cycle"):
        select_profile(tmp_path, None)
    # a name the base defines is known; one neither defines is not
    (tmp_path / "depgraph.toml").write_text('extends = "sglang"\ndrop = ["fa3", "nope"]\n')
    with pytest.raises(ProfileError, match=r"depgraph.toml:2: unknown feature 'nope'"):
        select_profile(tmp_path, None)


def _scan(tree: Path, *args: str) -> dict[str, object]:
    out = CliRunner().invoke(main, ["scan", str(tree), "--no-cache", "-q", "--format", "json",
                                    "--out", "-", *args])
    assert out.exit_code == 0, out.output
    data: dict[str, object] = json.loads(out.stdout)
    for volatile in ("root", "options", "tool"):
        data.pop(volatile)
    return data


def test_a_config_of_roots_plans_what_the_command_line_does(tmp_path: Path) -> None:
    """The issue's trap: `roots = [...]` alone in depgraph.toml switched the built-in off
    ("dropped: nothing", another plan)."""
    plain = write_tree(tmp_path / "plain", FAKE_SGLANG)
    configured = write_tree(tmp_path / "configured",
                            {**FAKE_SGLANG, "depgraph.toml": 'roots = ["tiny"]\n'})
    by_flag = _scan(plain, "--roots", "tiny")
    by_config = _scan(configured)
    profile = by_config["profile"]
    assert isinstance(profile, dict)
    # the built-in's default drops, and dual_chunk_flash_attn, which requires fa3
    assert profile["dropped"] == [*SGLANG_DROPS, "dual_chunk_flash_attn"]
    assert by_config["deletions"] == by_flag["deletions"]
    # flashmla_backend.py lies in the dropped flashmla feature's paths, but nothing imports
    # it: the plan keeping flashmla deletes it too, so it is no share of flashmla's (one
    # definition: issue 49) but other dead code
    assert any(d["path"].endswith("flashmla_backend.py") and d["feature"] == ""
               and d["features"] == [] for d in by_config["deletions"])  # type: ignore


def test_the_terminal_names_what_a_config_extends(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", {**FAKE_SGLANG, "depgraph.toml": 'roots = ["tiny"]\n'})
    out = CliRunner().invoke(main, ["scan", str(tree), "--no-cache", "--out",
                                    str(tmp_path / "out")])
    assert out.exit_code == 0, out.output
    assert (f"profile sglang (builtin:sglang, options from {tree / 'depgraph.toml'}); "
            "dropped: fa3, fa4, flashmla, ascend, dual_chunk_flash_attn") in out.stdout
