from app.legacy_model import LegacyModel
from app.npu_backend import NpuBackend


def test_legacy_model_on_npu():
    assert LegacyModel().run(NpuBackend()) == 1
