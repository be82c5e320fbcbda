"""The benchmark's synthetic monorepo generator (bench/synth.py): deterministic, sized as its
design says, and analysed by depgraph the way its structure implies (expected values are
derived from the generator's design in its module docstring, not from depgraph's output)."""

from __future__ import annotations

import sys

import pytest

from analyzer.pipeline.scan import run_scan
from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import synth  # bench/ is a folder of scripts, not a package

SRT = "python/synthsgl/srt"


def test_generation_is_deterministic_and_sized_by_design():
    assert synth.generate(2) == synth.generate(2)
    for k in (1, 2):
        files = synth.generate(k)
        py = [p for p in files if p.endswith(".py")]
        native = [p for p in files if p.endswith((".cc", ".cu", ".h"))]
        cmake = [p for p in files if p.endswith((".cmake", "CMakeLists.txt"))]
        # per unit: 8 models, 20 layers, 6 helpers, 4 backends, 1 NPU module, 1 test
        assert len(py) == 15 + 40 * k
        # per unit: kernel.cu, flash_fwd.cu, mla.cu; shared: 2 .cc + 1 header
        assert len(native) == 3 + 3 * k
        assert len(cmake) == 2
    assert synth.UNIT_PY == 40 and synth.SHARED_PY == 15


def test_refuses_a_non_empty_folder(tmp_path):
    (tmp_path / "keep.txt").write_text("user data")
    with pytest.raises(SystemExit):
        synth.write(tmp_path, 1)
    assert (tmp_path / "keep.txt").read_text() == "user data"


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    tree = tmp_path_factory.mktemp("synth-x2")
    synth.write(tree, 2)
    return run_scan(tree, ["model0_0"])


def test_scan_of_x2_follows_the_design(scanned):
    deleted = {d.path for d in scanned.plan.deletions if d.kind == "delete_file"}
    # backends registered only under dropped keys (fa3_u, flashmla_u) go with their feature
    for u in (0, 1):
        assert f"{SRT}/layers/attention/fa3_{u}_backend.py" in deleted
        assert f"{SRT}/layers/attention/flashmla_{u}_backend.py" in deleted
        # Ascend modules: nothing imports them
        assert f"{SRT}/hardware_backend/npu/npu_ops{u}.py" in deleted
    # models are a plugin family selected by the roots: only model0_0 stays
    assert f"{SRT}/models/model1_3.py" in deleted
    assert f"{SRT}/models/model0_0.py" not in deleted
    # kept backends stay (the registry is live through the model runner), and so does each
    # unit's layer0 (the model runner imports its fused_op)
    assert f"{SRT}/layers/attention/triton_1_backend.py" not in deleted
    assert f"{SRT}/layers/unit1/layer0.py" not in deleted
    live = scanned.liveness
    assert not live.is_live("target:flashmla_ops")
    assert live.is_live("target:common_ops")
    features = {f.name: f for f in scanned.features}
    assert not features["fa3"].blocked and not features["flashmla"].blocked
