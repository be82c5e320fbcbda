"""Discover, the test files of the deletion scope (``analyzer/discover/test_files.py``):
by convention -- ``test_*.py``, ``*_test.py``, ``conftest.py``, files under ``test/``,
``tests/``, ``testing/`` or a ``*_test(s)/`` folder, as the README lists them -- or by the
profile's ``test_paths`` globs."""

from __future__ import annotations

import pytest

from analyzer.discover.test_files import is_test_path


@pytest.mark.parametrize(("path", "expected"), [
    pytest.param("pkg/test_models.py", True, id="test-prefix"),
    pytest.param("pkg/models_test.py", True, id="test-suffix"),
    pytest.param("pkg/conftest.py", True, id="conftest"),
    pytest.param("test/helpers.py", True, id="under-test"),
    pytest.param("python/pkg/tests/data/util.py", True, id="under-tests-any-depth"),
    pytest.param("testing/fixtures.py", True, id="under-testing"),
    pytest.param("sgl-kernel/kernel_tests/run.py", True, id="under-x-tests"),
    pytest.param("srt/unit_test/run.py", True, id="under-x-test"),
    pytest.param("pkg/testing.py", False, id="a-file-named-testing"),
    pytest.param("pkg/contest.py", False, id="contest"),
    pytest.param("pkg/latest/models.py", False, id="folder-ending-in-test-letters"),
    pytest.param("pkg/tests.py", False, id="a-file-named-tests"),
    pytest.param("pkg/attest_util.py", False, id="test-inside-a-name"),
    pytest.param("benchmark/bench_attn.py", False, id="benchmark"),
])
def test_by_convention(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected


def test_by_the_profiles_globs() -> None:
    globs = ("python/pkg/srt/checks/**", "smoke_*.py")
    assert is_test_path("python/pkg/srt/checks/attn.py", globs)
    assert is_test_path("scripts/smoke_run.py", globs)
    assert not is_test_path("python/pkg/srt/models/llama.py", globs)
    assert not is_test_path("python/pkg/srt/checks/attn.py")  # without the globs
