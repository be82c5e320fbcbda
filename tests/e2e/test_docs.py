"""The README and the docs tell the truth about the checkout: every path they name exists,
and every option of a ``depgraph`` command line in their code blocks is an option of that
command (issue 27, item 8). The two set-up commands lead the README."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from tests.helpers import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]
PATH = re.compile(r"(?<![\w/.-])((?:analyzer|templates|tests|sample_repos|bench|docs|queries|"
                  r"\.ci)/[\w./-]*[\w/])")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_path_a_doc_names_exists(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    named = set(PATH.findall(text)) | {
        link for link in re.findall(r"\]\(([^)#\s]+)\)", text) if "://" not in link}
    missing = sorted(p for p in named
                     if not (ROOT / p).exists() and not (doc.parent / p).exists())
    assert missing == []


def test_the_readme_starts_with_the_two_setup_commands() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[2] == "```bash"
    assert lines[3].startswith("pip install . && depgraph scan --demo ")
    assert lines[4].startswith('pip install ".[test]" && python -m pytest ')


def _help(command: str) -> str:
    got = CliRunner().invoke(main, [command, "--help"])
    assert got.exit_code == 0, got.output
    return got.output


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_command_line_option_exists(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    blocks = re.findall(r"```(?:bash|sh|console)?\n(.*?)```", text, re.S)
    checked = 0
    for block in blocks:
        for raw in block.splitlines():
            line = raw.split(" #")[0].strip()
            parts = [p.strip() for p in line.split("&&")]
            commands = [p for p in parts if p.startswith("depgraph ")]
            if not commands:
                continue
            words = shlex.split(commands[0])
            if len(words) < 2 or words[1].startswith("-"):
                continue
            helptext = _help(words[1])
            for word in words[2:]:
                if word.startswith("--"):
                    assert re.search(rf"(?<![\w-]){re.escape(word.split('=')[0])}\b",
                                     helptext), f"{doc.name}: {line}: {word}"
                    checked += 1
    assert checked or doc != ROOT / "README.md"
