"""Shared, ``gc_paused`` (``analyzer/util/gc_pause.py``): the cyclic collector is off inside and
back to what it was after, also when the body raises."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from analyzer.util.gc_pause import gc_paused


@pytest.fixture
def restore_gc() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.parametrize("enabled_before", [True, False], ids=["enabled", "disabled"])
def test_paused_inside_restored_after(restore_gc: None, enabled_before: bool) -> None:
    if enabled_before:
        gc.enable()
    else:
        gc.disable()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled() is enabled_before


def test_restored_when_the_body_raises(restore_gc: None) -> None:
    gc.enable()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()
