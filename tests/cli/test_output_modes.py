"""Files depgraph writes get a new file's permissions (0o666 less the umask: readable by the
group under the usual 022), not the 0o600 of the temp file they are written through; and no
command writes a colour code (NO_COLOR has nothing to turn off)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from tests.helpers import MINI_SGLANG, ROOT


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_outputs_and_patches_are_readable_by_the_group(tmp_path: Path, umask: None) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(MINI_SGLANG, tree)
    out = tmp_path / "out"
    got = CliRunner().invoke(main, ["scan", str(tree), "--roots", "deepseek_v2", "--no-cache",
                                    "--out", str(out), "--format", "json", "--format", "html",
                                    "--format", "md", "--format", "sarif"])
    assert got.exit_code == 0, got.output
    modes = {p.name: p.stat().st_mode & 0o777 for p in out.iterdir()}
    assert set(modes.values()) == {0o644}, modes
    applied = CliRunner().invoke(main, ["apply", str(out / "manifest.json"), "--write",
                                        "--patch-out", str(tmp_path / "undo.patch")])
    assert applied.exit_code == 0, applied.output
    assert (tmp_path / "undo.patch").stat().st_mode & 0o777 == 0o644
    assert (tree / ".depgraph-apply.json").stat().st_mode & 0o777 == 0o644
    # an edited file keeps its own mode
    assert (tree / "python/minisgl/srt/server_args.py").stat().st_mode & 0o777 == 0o644
    os.umask(0o027)
    got = CliRunner().invoke(main, ["scan", str(MINI_SGLANG), "--roots", "deepseek_v2",
                                    "--no-cache", "--out", str(tmp_path / "o2"),
                                    "--format", "json"])
    assert got.exit_code == 0
    assert (tmp_path / "o2" / "manifest.json").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("args", [
    ["scan", str(MINI_SGLANG), "--roots", "deepseek_v2", "--no-cache", "--format", "json",
     "--out", "-"],
    ["why", str(MINI_SGLANG), "deepseek_v2", "--roots", "deepseek_v2", "--no-cache"],
    ["verify", str(MINI_SGLANG), "--no-cache"],
    ["scan", str(MINI_SGLANG), "--drop", "flashmal"],
])
def test_no_colour_codes(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    outputs = []
    for no_color in ("1", None):
        if no_color:
            monkeypatch.setenv("NO_COLOR", no_color)
        else:
            monkeypatch.delenv("NO_COLOR", raising=False)
        got = CliRunner().invoke(main, args, color=True)  # as on a terminal: nothing stripped
        outputs.append(re.sub(r"\(\d+\.\d+s", "(TIME", got.output))
        assert "\x1b" not in got.output
    assert outputs[0] == outputs[1]


def test_the_source_styles_nothing() -> None:
    """No click.style/secho and no escape sequence anywhere in depgraph's own code."""
    pattern = re.compile(r"click\.(style|secho)\b|\\x1b|\\033|\\u001b")
    hits = [p for p in (ROOT / "analyzer").rglob("*.py") if pattern.search(p.read_text())]
    hits += [p for p in (ROOT / "templates").glob("*.j2") if "\\x1b" in p.read_text()]
    assert hits == []
