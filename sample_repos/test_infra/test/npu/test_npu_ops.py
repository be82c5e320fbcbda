from app.npu_backend import NpuBackend


def test_backend():
    assert NpuBackend()
