"""On-demand extraction (``analyzer.extract.demand``, seeds from ``analyzer.extract.seeds``):
a file no parsed file can name is counted, not parsed, and the result is the full parse's.

Expectations come from reading sample_repos/demand_extract (its README lists why each file
is parsed or counted)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from analyzer.outputs.manifest import manifest_dict
from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "demand_extract"
VOLATILE = {"generated_at", "tool", "options"}


def _manifest(result) -> dict:
    data = json.loads(json.dumps(manifest_dict(result), default=str))
    return {k: v for k, v in data.items() if k not in VOLATILE}


def test_only_files_nothing_can_name_are_counted() -> None:
    result = run_scan(SAMPLE, ["llama"])
    # models of a restricted family nothing names, and a module nothing imports
    assert result.counted == {"lazy/models/gemma.py", "lazy/models/mistral.py",
                              "lazy/orphan.py"}
    # counted files still have their size and hash, and go whole
    assert result.files["lazy/models/mistral.py"].lines == 6
    deleted = {d.path for d in result.plan.deletions if d.kind == "delete_file"}
    assert deleted == {"lazy/models/gemma.py", "lazy/models/mistral.py", "lazy/orphan.py",
                       "lazy/toggle.py"}
    # the closure found every other file: only the attribute's setter took a second pass
    assert result.reparsed == {"lazy/toggle.py"}
    # the file that does not parse was parsed (so it is reported and kept, not counted)
    assert "lazy/broken.py" in {p.path for p in result.problems}
    assert "lazy/broken.py" not in deleted


@pytest.mark.parametrize(("sample", "roots"), [
    ("demand_extract", ["llama"]),
    ("mini_sglang", ["deepseek_v2"]),
    ("mini_vllm", ["deepseek_v2"]),
    ("regular_pkgs", []),
    ("prune_safety", []),
    ("native_macro_ops", []),
    ("profile_keys", []),
])
def test_the_manifest_is_the_full_parse_one(sample: str, roots: list[str]) -> None:
    demand = run_scan(SAMPLES / sample, roots)
    full = run_scan(SAMPLES / sample, roots, parse_all=True)
    assert not full.counted
    assert _manifest(demand) == _manifest(full)


def test_a_guard_decided_by_an_absent_setter_parses_the_counted_setter(tmp_path: Path
                                                                       ) -> None:
    # toggle.py sets `model.fast`: with it, Model.forward's branch (and the dropped
    # feature's module it imports) stays
    with_setter = run_scan(SAMPLE, ["llama"])
    assert "lazy/toggle.py" not in with_setter.counted
    assert not any(d.path in ("lazy/models/llama.py", "lazy/accel.py")
                   for d in with_setter.plan.deletions)
    # without it the branch is decided by the feature's constant and folds
    tree = tmp_path / "t"
    shutil.copytree(SAMPLE, tree)
    (tree / "lazy" / "toggle.py").unlink()
    without = run_scan(tree, ["llama"])
    assert {(d.kind, d.path) for d in without.plan.deletions
            if d.path in ("lazy/models/llama.py", "lazy/accel.py")} == {
        ("fold_branch", "lazy/models/llama.py"), ("delete_file", "lazy/accel.py")}
