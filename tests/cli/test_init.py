"""``depgraph init``: a commented starter config, the detected framework's profile or a
skeleton; it loads as a profile and never overwrites."""

from __future__ import annotations

from click.testing import CliRunner

from analyzer.cli.main import main
from analyzer.config.profile import load_profile_file
from tests.helpers import write_tree

SGLANG_TREE = {"python/sglang/srt/server_args.py": "",
               "python/sglang/srt/models/registry.py": "",
               "python/sglang/srt/layers/attention/__init__.py": ""}


def test_init_writes_a_short_config_extending_the_detected_builtin(tmp_path) -> None:
    tree = write_tree(tmp_path / "t", SGLANG_TREE)
    out = CliRunner().invoke(main, ["init", str(tree)])
    assert out.exit_code == 0, out.output
    assert "extends the built-in sglang profile" in out.stdout
    text = (tree / "depgraph.toml").read_text()
    assert text.startswith("# depgraph configuration") and '# roots = ["deepseek_v2"]' in text
    assert '\nextends = "sglang"\n' in text
    assert len(text.splitlines()) < 40  # a short config, not a copy of the built-in
    profile = load_profile_file(tree / "depgraph.toml", tree)
    assert profile.name == "sglang" and "fa3" in profile.features
    again = CliRunner().invoke(main, ["init", str(tree)])
    assert again.exit_code == 3 and "never overwrites" in again.stderr


def test_init_full_writes_a_copy_that_extends_nothing(tmp_path) -> None:
    tree = write_tree(tmp_path / "t", SGLANG_TREE)
    out = CliRunner().invoke(main, ["init", "--full", str(tree)])
    assert out.exit_code == 0, out.output
    text = (tree / "depgraph.toml").read_text()
    assert "\nextends = false" in text and len(text.splitlines()) > 400
    profile = load_profile_file(tree / "depgraph.toml", tree)
    assert profile.name == "sglang" and profile.extends == "" and "fa3" in profile.features
    assert profile.source == str(tree / "depgraph.toml")


def test_init_writes_a_skeleton_elsewhere(tmp_path) -> None:
    tree = write_tree(tmp_path / "proj", {"pkg/__init__.py": ""})
    out = CliRunner().invoke(main, ["init", str(tree)])
    assert out.exit_code == 0, out.output
    profile = load_profile_file(tree / "depgraph.toml")
    assert profile.name == "proj" and profile.features == {}
