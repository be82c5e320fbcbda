"""Fixtures of the decide-stage tests."""

from __future__ import annotations

import pytest

from analyzer.decide import guards


@pytest.fixture
def folded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The modules guard folding folds (not read back, not taken over), in order."""
    seen: list[str] = []
    real = guards.fold_module

    def count(module, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(module)
        return real(module, *args, **kwargs)

    monkeypatch.setattr(guards, "fold_module", count)
    return seen
