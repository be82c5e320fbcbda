"""The edits a scan's gate computed are read back by the ``apply`` that follows
(``analyzer.codemod.apply.EditCache``): an entry is the same edit however the attribution
labelled it (the features it goes with are set after the gate), and any field an edit reads
makes another one. Expected bytes written by hand from the sources below."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from analyzer.codemod import apply
from analyzer.core.session import session

SOURCE = b"import os\nimport sys\n\nprint(os.sep)\n"
EDITED = b"import os\n\nprint(os.sep)\n"  # (the unused `import sys` gone)
REMOVE_SYS: dict[str, Any] = {"kind": "delete_range", "path": "pkg/m.py", "start_line": 2,
                              "end_line": 2, "lines": 1, "reason": "sys: never used",
                              "feature": "fa3"}
# a try/except ImportError folded to its body where the statement is not one: left undone
TRY_SOURCE = b"import os\n\nprint(os.sep)\n"
BAD_UNWRAP: dict[str, Any] = {"kind": "fold_branch", "path": "pkg/t.py", "start_line": 1,
                              "end_line": 1, "lines": 1, "rewrite": "try_unwrap",
                              "statement": [1, 3], "keep": [1, 1],
                              "reason": "try: import gone", "feature": "fa3"}


@pytest.fixture()
def edited(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files edited anew (not read back)."""
    out: list[str] = []
    real = apply._edit_entries

    def counting(rel: str, old: bytes, group: list[dict[str, Any]]
                 ) -> tuple[bytes, dict[str, str]]:
        out.append(rel)
        return real(rel, old, group)

    monkeypatch.setattr(apply, "_edit_entries", counting)
    return out


def test_an_entry_labelled_otherwise_reads_its_edit_back(tmp_path: Path,
                                                         edited: list[str]) -> None:
    with session(tmp_path / "cache"):
        assert apply._edit_all([("pkg/m.py", SOURCE, [REMOVE_SYS])]) == [(EDITED, {})]
    assert edited == ["pkg/m.py"]
    labelled = {**REMOVE_SYS, "features": ["fa3"], "with_features": ["fa4"], "after": ["nsa"],
                "feature": "fa4"}
    edited.clear()
    with session(tmp_path / "cache"):
        assert apply._edit_all([("pkg/m.py", SOURCE, [labelled])]) == [(EDITED, {})]
    assert edited == []
    # a field the edit reads: another edit (the reason, other lines, other bytes)
    for job in [("pkg/m.py", SOURCE, [{**REMOVE_SYS, "reason": "other"}]),
                ("pkg/m.py", SOURCE, [{**REMOVE_SYS, "start_line": 1, "end_line": 1}]),
                ("pkg/m.py", SOURCE + b"\n", [REMOVE_SYS])]:
        edited.clear()
        with session(tmp_path / "cache"):
            apply._edit_all([job])
        assert edited == ["pkg/m.py"]


def test_an_entry_left_undone_is_named_by_the_asking_entry(tmp_path: Path,
                                                          edited: list[str]) -> None:
    with session(tmp_path / "cache"):
        (new, left), = apply._edit_all([("pkg/t.py", TRY_SOURCE, [BAD_UNWRAP])])
    assert new == TRY_SOURCE and list(left) == [apply.entry_id(BAD_UNWRAP)]
    labelled = {**BAD_UNWRAP, "features": ["fa3"]}
    edited.clear()
    with session(tmp_path / "cache"):
        (again, left_again), = apply._edit_all([("pkg/t.py", TRY_SOURCE, [labelled])])
    assert edited == []
    assert again == TRY_SOURCE
    assert list(left_again) == [apply.entry_id(labelled)]
    assert list(left_again.values()) == list(left.values())
