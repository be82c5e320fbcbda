"""Every key of the profile language changes some result: the hand-written sample
``sample_repos/profile_keys`` uses each one, and each case below removes (or, where the key
is required, changes) exactly one of them and checks the scan's manifest differs. The last
test checks that the cases cover every key the validator accepts, so a key added to the
language without an effect is caught here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from analyzer.config import validate
from analyzer.config.profile import select_profile
from tests.helpers import SAMPLES, write_tree

SAMPLE = SAMPLES / "profile_keys"

# (section, key) -> (the text of depgraph.toml to replace, its replacement)
CASES: dict[tuple[str, str], tuple[str, str]] = {
    ("top", "name"): ('name = "profile_keys"', 'name = "renamed"'),
    ("top", "description"): ('description = "Every profile key at work"', ""),
    ("top", "entry_points"): ('entry_points = ["app.main:main"]', ""),
    ("top", "test_paths"): ('test_paths = ["app/selftest.py"]', ""),
    ("top", "default_drops"): ('default_drops = ["npu"]', ""),
    ("top", "keep_targets"): ('keep_targets = ["core_ops"]', ""),
    # without it, core_ops linking torch may need a target bench-sdk's CMake defines
    ("top", "system_libraries"): ('system_libraries = ["torch"]', ""),
    # the extended profile's never_delete keeps app/graphs_npu.py
    ("top", "extends"): ('extends = "more.toml"', ""),
    ("family", "name"): ('name = "models"', 'name = "model_zoo"'),
    ("family", "package"): ('package = "app.models"', 'package = "app.plugins"'),
    ("family", "select"): ('select = "roots"', 'select = "all"'),
    ("family", "recursive"): ("recursive = true", ""),
    ("family", "companion_of"): ('companion_of = "app.models"', 'companion_of = "app.plugins"'),
    # a registry's name is what features and domains refer to it by: renamed everywhere,
    # the reasons of its deletions name it
    ("registry", "name"): ('name = "choices"\n', 'name = "choice_list"\n'),
    ("registry", "kind"): ('kind = "call"', 'kind = "decorator"'),
    ("registry", "target"): ('target = "app.args.Kind"', 'target = "app.args.Args"'),
    ("registry", "key_arg"): ("key_arg = 1", ""),
    # without it the key is read from the first positional argument: there is none
    ("registry", "key_keyword"): ('key_keyword = "name"', ""),
    # without it the entry naming the deleted app.models.sub.tiny stays
    ("registry", "module_package"): ("module_package = 'app.models'", ""),
    ("registry", "keys"): ('keys = ["cuda", "cpu", "npu"]', ""),
    ("feature", "description"): ('description = "The NPU platform"', ""),
    ("feature", "registry_keys"): ('handlers = ["npu"]\n', ""),
    ("feature", "paths"): ('paths = ["app/npu_*.py", "csrc/npu_*.cc"]', ""),
    ("feature", "identifiers"): ('identifiers = ["forward_npu"]', ""),
    ("feature", "constants"): ('constants = { "app.platform.is_npu" = false }', ""),
    ("feature", "cmake_options"): ("cmake_options = { ENABLE_NPU = false }", ""),
    ("feature", "targets"): ('targets = ["npu_ops"]', ""),
    ("feature", "extension_modules"): ('extension_modules = ["app.npu_ext"]', ""),
    ("feature", "fetches"): ('fetches = ["npu-sdk"]', ""),
    ("feature", "requires"): ('requires = ["npu"]', ""),
    ("never_delete", "path"): ('path = "app/legacy.py"', 'path = "app/nothing.py"'),
    ("never_delete", "symbol"): ('symbol = "app.main:public_helper"',
                                 'symbol = "app.main:nothing"'),
    ("never_delete", "reason"): ('reason = "public API"', 'reason = "kept for users"'),
    ("hint", "source"): ('source = "app.main:main"', 'source = "app.args:Args"'),
    ("hint", "targets"): ('targets = ["app.plugins.loaded"]', 'targets = ["app.models.llama"]'),
    # the tables themselves
    ("top", "plugin_families"): ('[[plugin_families]]\nname = "models"\npackage = "app.models"\n'
                                 'select = "roots"\nrecursive = true\n', ""),
    ("top", "registries"): ("", ""),  # covered by every registry key above
    ("top", "constants"): ('"app.platform.is_fast" = true', ""),
    ("top", "domains"): ('"*.device" = "devices"', ""),
    ("top", "features"): ("", ""),  # covered by every feature key above
    ("top", "never_delete"): ("", ""),  # covered by the never_delete keys above
    ("top", "dynamic_imports"): ("", ""),  # covered by the hint keys above
    ("top", "platform_methods"): ('"forward_cpu" = "app.platform.is_cpu"', ""),
    # scan options
    ("top", "roots"): ('roots = ["llama"]', ""),
    ("top", "exclude"): ('exclude = ["app/vendored.py"]', ""),
    ("top", "drop"): ('drop = ["tools"]', ""),
    ("top", "keep"): ('keep = ["npu_graphs"]', ""),
    ("top", "default_roots"): ("default_roots = true", "default_roots = false"),
    ("top", "strict"): ("strict = false", "strict = true"),  # the sample has a stale hint
    ("top", "format"): ('format = ["json"]', ""),
    ("top", "out"): ('out = "-"', ""),
    ("top", "fail_on_removable"): ("fail_on_removable = false", "fail_on_removable = true"),
    # other dead code (app/models/sub/tiny.py, unreachable) is no longer planned
    ("top", "scope"): ('scope = "all"', 'scope = "features"'),
}
# keys that change how a scan runs, not what it finds: checked by the test below instead
RUN_SETTINGS = {("top", "jobs"), ("top", "cache_dir")}
# keys whose removal is shown to change the result on a sample of their own
ELSEWHERE = {
    # tests/decide/test_probed_registry.py: without it, values block the dropped key
    ("registry", "probed"),
}


def manifest(tree: Path) -> str:
    """What `depgraph scan TREE` writes: the config's `format = ["json"]` and `out = "-"`
    put the manifest on stdout (its roots come from the config too); an error is a
    result as well."""
    out = CliRunner().invoke(main, ["scan", str(tree), "--no-cache", "-q"])
    if out.exit_code != 0:
        return f"exit {out.exit_code}: {out.stderr}"
    try:
        data = json.loads(out.stdout)
    except json.JSONDecodeError:
        return out.stdout
    for volatile in ("root", "tool"):
        data.pop(volatile, None)
    return json.dumps(data, sort_keys=True)


@pytest.fixture(scope="module")
def baseline() -> str:
    return manifest(SAMPLE)


@pytest.mark.parametrize("case", [c for c, (old, _new) in CASES.items() if old],
                         ids=lambda c: ".".join(c))
def test_each_key_changes_the_result(tmp_path: Path, baseline: str,
                                     case: tuple[str, str]) -> None:
    old, new = CASES[case]
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE, tree)
    profile = tree / "depgraph.toml"
    text = profile.read_text()
    assert text.count(old) == 1, old  # the case names one place of the sample's profile
    text = text.replace(old, new)
    if case == ("registry", "name"):
        text = text.replace('\nchoices = ["npu"]', '\nchoice_list = ["npu"]')
    profile.write_text(text)
    assert manifest(tree) != baseline


def test_detect_chooses_a_builtin_profile(tmp_path: Path) -> None:
    """`detect` decides which built-in profile an unconfigured tree gets."""
    files = {"python/sglang/srt/server_args.py": "", "python/sglang/srt/models/registry.py": "",
             "python/sglang/srt/layers/attention/__init__.py": ""}
    tree = write_tree(tmp_path / "t", files)
    found = select_profile(tree, None)
    assert found is not None and found.name == "sglang"
    (tree / "python/sglang/srt/models/registry.py").unlink()
    assert select_profile(tree, None) is None


def test_the_cases_cover_every_key_of_the_language() -> None:
    sections = {"top": validate.TOP_KEYS, "family": validate.FAMILY_KEYS,
                "registry": validate.REGISTRY_KEYS, "feature": validate.FEATURE_KEYS,
                "never_delete": validate.KEEP_KEYS, "hint": validate.HINT_KEYS}
    accepted = {(s, k) for s, keys in sections.items() for k in keys}
    covered = set(CASES) | {("top", "detect")} | RUN_SETTINGS | ELSEWHERE
    assert accepted == covered


def test_the_command_line_overrides_the_config(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE, tree)
    out = CliRunner().invoke(main, ["scan", str(tree), "--no-cache", "-q", "--roots", "tiny",
                                    "--keep", "tools"])
    data = json.loads(out.stdout)
    assert data["roots"] == ["tiny"]
    assert data["profile"]["dropped"] == ["npu", "npu_graphs"]  # --keep tools replaced keep


def test_a_bad_option_key_is_a_located_error(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE, tree)
    profile = tree / "depgraph.toml"
    text = profile.read_text().replace("strict = false", 'strict = "no"')
    profile.write_text(text)
    line = text.splitlines().index('strict = "no"') + 1
    out = CliRunner().invoke(main, ["scan", str(tree), "--no-cache"])
    assert out.exit_code == 6
    assert out.stderr.strip() == (f"depgraph: error: {profile}:{line}: strict must be true or "
                                  "false, got string")


def test_run_settings_from_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.cli.main as cli_main

    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE, tree)
    profile = tree / "depgraph.toml"
    profile.write_text(profile.read_text().replace(
        'out = "-"', 'out = "-"\njobs = 1\ncache_dir = ".depgraph-cache"'))
    seen: list[tuple[object, ...]] = []
    real = cli_main.run_settings
    monkeypatch.setattr(cli_main, "run_settings",
                        lambda *a: seen.append(a) or real(*a))  # type: ignore[func-returns-value]
    out = CliRunner().invoke(main, ["scan", str(tree), "-q"])
    assert out.exit_code == 0, out.output
    assert seen[0][:2] == (1, tree / ".depgraph-cache")
    assert (tree / ".depgraph-cache").is_dir()  # the caches went there
