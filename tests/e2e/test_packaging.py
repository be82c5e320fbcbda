"""The installed package (CI installs a built wheel, not -e) carries its data and runs; the
pre-commit hook the repository declares runs it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT


def _installed_analyzer_dir(cwd: Path) -> Path | None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", "import analyzer, os; print(os.path.dirname(analyzer.__file__))"],
        cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return None
    return Path(proc.stdout.strip())


def test_installed_package_runs_the_bundled_sample(tmp_path):
    installed = _installed_analyzer_dir(tmp_path)
    script = Path(sys.executable).parent / "depgraph"
    if installed is None or not script.exists():
        pytest.skip("depgraph is not installed in this interpreter")
    if installed.resolve() != (ROOT / "analyzer").resolve():
        # a real (non-editable) install: data folders were copied into the package
        for rel in ("queries/python.scm", "queries/cuda.scm", "queries/cmake.scm",
                    "templates/report.html.j2", "sample_repos/mini_sglang"):
            assert (installed / rel).exists(), rel
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([str(script), "scan", "--demo", "--out", "out"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["roots"] == ["deepseek_v2"]
    assert (tmp_path / "out" / "report.html").stat().st_size > 0


def test_pre_commit_hook() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "- id: depgraph\n" in text
    entry = re.search(r"^\s+entry: (.+)$", text, re.M)
    assert entry is not None
    assert entry.group(1).split()[:2] == ["depgraph", "scan"]
    assert {"--quiet", "--fail-on-removable"} <= set(entry.group(1).split())
    for line in ("language: python", "pass_filenames: false", "always_run: true"):
        assert f"  {line}\n" in text
