"""Pipeline units: the stage timer, and the inputs a scan reads (discovery, profile, digests)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from analyzer.config.options import ScanOptions
from analyzer.errors import ScanError
from analyzer.pipeline.inputs import gather_inputs
from analyzer.pipeline.timing import StageTimer
from tests.helpers import write_tree


def test_stage_timer_sums_the_rounds_a_stage_runs_in() -> None:
    timer = StageTimer({"discover": 1.0})
    for _ in range(3):
        with timer("graph"):
            pass
    with pytest.raises(RuntimeError), timer("plan"):
        raise RuntimeError("a stage that fails is still timed")
    assert set(timer.seconds) == {"discover", "graph", "plan"}
    assert timer.seconds["discover"] == 1.0
    assert 0.0 <= timer.seconds["graph"] < 1.0


def test_inputs_hold_every_file_its_digest_and_the_chosen_profile(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", {
        "app/__init__.py": "",
        "app/a.py": "x = 1\n",
        "depgraph.toml": 'name = "t"\ndescription = "t"\n',
    })
    inputs = gather_inputs(tree, ScanOptions())
    assert sorted(f.path for f in inputs.discovery.files) == ["app/__init__.py", "app/a.py"]
    digest = dict(zip([f.path for f in inputs.discovery.files], inputs.digests, strict=True))
    assert digest["app/a.py"] == hashlib.sha256(b"x = 1\n").hexdigest()
    assert inputs.profile is not None and inputs.profile.name == "t"
    assert gather_inputs(tree, ScanOptions(use_profile=False)).profile is None


def test_inputs_of_a_tree_without_python_is_a_scan_error(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", {"README.md": "no code\n"})
    with pytest.raises(ScanError):
        gather_inputs(tree, ScanOptions())


def test_the_analysis_keeps_no_file_bytes(tmp_path: Path) -> None:
    """The bytes fingerprinting read go to extraction and are dropped; the result reads a
    file again when asked (checked against its digest), and its pickle holds no bytes."""
    import pickle

    from analyzer.extract.source_bytes import SourceBytes
    from analyzer.pipeline.scan import analyze

    tree = write_tree(tmp_path / "t", {
        "app/__init__.py": "",
        "app/main.py": "from app import util\nutil.run()\n",
        "app/util.py": "def run():\n    return 'the bytes of util'\n",
    })
    inputs = gather_inputs(tree, ScanOptions(roots=("app.main",), use_profile=False))
    assert len(inputs.data) == 3  # no digest cache: fingerprinting read every file
    result = analyze(inputs, ScanOptions(roots=("app.main",), use_profile=False))
    assert inputs.data == {}
    assert isinstance(result.sources, SourceBytes)
    assert result.sources["app/util.py"] == b"def run():\n    return 'the bytes of util'\n"
    assert b"the bytes of util" not in pickle.dumps(result.sources)
