"""Tests that keep models alive (issue 49, item 4), on ``sample_repos/kept_by_tests``: the
conftest's grok fixture keeps the grok model (and its helper) that nothing serves; every
output names them as kept by that test, and no feature counts them. Expectations come from
reading the sample."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "kept_by_tests"
KEPT = {"app/grok.py": "tests/conftest.py", "app/grok_utils.py": "tests/conftest.py"}


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("kept")
    got = CliRunner().invoke(main, ["scan", str(SAMPLE), "--no-cache", "--out", str(out),
                                    "--format", "json", "--format", "html", "--format", "md"])
    assert got.exit_code == 0, got.output
    return got.stdout, json.loads((out / "manifest.json").read_text()), out


def test_the_manifest_and_the_terminal_say_what_tests_keep(scanned) -> None:
    stdout, manifest, _out = scanned
    # bert goes with its own test; grok (6 lines) and its helper (2) stay for the conftest
    assert {d["path"] for d in manifest["deletions"]} == {"app/bert.py", "tests/test_bert.py"}
    assert manifest["kept_by_tests"] == [{"path": p, "test": t} for p, t in KEPT.items()]
    assert "  kept by tests: 2 files, 8 lines only a test of live code reaches (`depgraph " \
        "why` names it)" in stdout.splitlines()


def test_the_report_and_the_summary_list_them(scanned) -> None:
    _stdout, _manifest, out = scanned
    html = (out / "report.html").read_text()
    assert "Kept by tests (2 files, 8 lines)" in html
    assert "kept: imported by <code>tests/conftest.py</code> (a test of live code)" in html
    md = (out / "summary.md").read_text()
    assert "- `app/grok.py`: kept: imported by `tests/conftest.py` (a test of live code)" in md


def test_why_names_the_test() -> None:
    got = CliRunner().invoke(main, ["why", str(SAMPLE), "app.grok", "--no-cache"])
    assert got.exit_code == 0, got.output
    assert got.stdout.splitlines()[0] == (
        "app.grok (app/grok.py) is live: kept by tests/conftest.py, a test of live code or "
        "its infrastructure (only tests reach it):")
