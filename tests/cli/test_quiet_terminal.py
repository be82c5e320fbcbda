"""A quiet, exact terminal (issue 51, item 5): no warnings about the built-in profile the
user cannot edit (-v lists them; a profile of their own still warns), thousands separators,
singular nouns for one."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from analyzer.cli.main import main
from analyzer.util.words import count, num
from tests.config.test_extends import FAKE_SGLANG
from tests.helpers import write_tree


def _scan(tree: Path, out: Path, *args: str) -> tuple[str, str]:
    got = CliRunner().invoke(main, ["scan", str(tree), "--no-cache", "--out", str(out),
                                    "--roots", "tiny", *args])
    assert got.exit_code == 0, got.output
    return got.stdout, got.stderr


def test_the_builtin_profiles_stale_entries_only_with_verbose(tmp_path: Path) -> None:
    # the built-in SGLang profile on a six-file tree: most of its entries match nothing
    tree = write_tree(tmp_path / "t", FAKE_SGLANG)
    stdout, stderr = _scan(tree, tmp_path / "o")
    assert "profile sglang (builtin:sglang)" in stdout
    assert "stale" not in stderr
    _, verbose = _scan(tree, tmp_path / "o2", "-v")
    assert any(line.startswith("warning: stale: builtin:sglang:")
               for line in verbose.splitlines())


def test_a_profile_of_ones_own_warns_of_its_stale_entries(tmp_path: Path) -> None:
    files = {**FAKE_SGLANG, "depgraph.toml": (
        'name = "mine"\nentry_points = ["sglang.srt.models.tiny"]\n\n[[never_delete]]\n'
        'symbol = "sglang.srt.gone_module:f"\nreason = "a hook"\n')}
    tree = write_tree(tmp_path / "t", files)
    _, stderr = _scan(tree, tmp_path / "o")
    assert any(line.startswith("warning: stale: ") and "depgraph.toml:4" in line
               and "sglang.srt.gone_module" in line for line in stderr.splitlines()), stderr


def test_thousands_and_one(tmp_path: Path) -> None:
    # one dead module of 1,200 lines beside the root: 1 file, 1,200 lines, 1 deletion
    dead = "".join(f"X{i} = {i}\n" for i in range(1200))
    tree = write_tree(tmp_path / "t", {"pkg/__init__.py": "", "pkg/tiny.py": "X = 1\n",
                                        "pkg/dead_helper.py": dead})
    stdout, _ = _scan(tree, tmp_path / "o", "--no-profile")
    removable = next(line for line in stdout.splitlines() if line.startswith("removable:"))
    assert removable.startswith("removable: 1 file, 1,200 lines in 1 deletion (")


def test_words() -> None:
    assert num(4105) == "4,105" and num(12) == "12"
    assert count(1, "file") == "1 file" and count(0, "file") == "0 files"
    assert count(2, "test imports", "tests import") == "2 tests import"
