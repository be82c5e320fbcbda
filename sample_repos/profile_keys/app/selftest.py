"""A self-test living in the package: the profile's test_paths make it a test file."""

from app.npu_backend import NpuBackend


def check_npu():
    return NpuBackend()
