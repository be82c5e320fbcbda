"""The rounds' state (analyzer.pipeline.rounds.Retained) is a value: a rule's conflicts give
a new state with what each asks kept, the old one unchanged, and the fixpoint test compares
what is kept, not the log of the conflicts that asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.model import Deletion
from analyzer.pipeline.rounds_state import Retained
from analyzer.plan.check import Conflict
from tests.helpers import module_index


def _deletion(kind: str, path: str, category: str, start: int | None = None,
              end: int | None = None, symbol: str | None = None) -> Deletion:
    return Deletion(kind, path, "0" * 64, 1, "test", start_line=start,  # type: ignore[arg-type]
                    end_line=end, symbol=symbol, category=category)  # type: ignore[arg-type]


@pytest.fixture
def index(tmp_path: Path):
    # app/main.py: three import statements, on lines 1, 2 and 4
    return module_index(tmp_path, {
        "app/__init__.py": "",
        "app/main.py": "import os\nimport sys\n\nfrom app import util\n",
        "app/util.py": "X = 1\n",
    })


def test_each_kind_of_conflict_keeps_its_own_thing(index):
    conflicts = [
        Conflict("CMakeLists.txt", 3, "option", option="USE_FA3"),
        Conflict("CMakeLists.txt", 9, "command", keep_line=("cmake/fa3.cmake", 0)),
        Conflict("app/main.py", 1, "root", root="py:app.util"),
        Conflict("app/main.py", 5, "branch",
                 deletion=_deletion("fold_branch", "app/main.py", "python-branch", 5, 8)),
        Conflict("app/reg.py", 2, "entry",
                 deletion=_deletion("delete_range", "app/reg.py", "registry-entry", 2, 2)),
        Conflict("app/main.py", 1, "symbol",
                 deletion=_deletion("delete_range", "app/util.py", "python-symbol", 1, 1,
                                    symbol="app.util:X")),
        # lines 2-4 of app/main.py hold two import statements (lines 2 and 4): both kept
        Conflict("app/main.py", 4, "import",
                 deletion=_deletion("delete_range", "app/main.py", "python-import", 2, 4)),
        Conflict("app/util.py", 0, "file",
                 deletion=_deletion("delete_file", "app/util.py", "python-file")),
        Conflict("app/x.py", 1, "nothing to keep"),
    ]
    before = Retained()
    after = before.absorbing(conflicts, index)
    assert after.unforced == {"USE_FA3"}
    assert after.cmake_lines == {("cmake/fa3.cmake", 0)}
    assert after.roots == {"py:app.util", "py:app.util:X"}
    assert after.regions == {("app/main.py", 5, 8)}
    assert after.entries == {("app/reg.py", 2)}
    assert after.imports == {("app/main.py", 2), ("app/main.py", 4)}
    assert after.log == tuple(conflicts)
    # the state it came from is unchanged (a value, not an object the rule edits)
    assert before == Retained() and before.log == () and not before.roots


def test_the_fixpoint_compares_what_is_kept_not_the_log(index):
    kept = Retained().absorbing([Conflict("app/main.py", 1, "root", root="py:app.util")],
                                index)
    again = kept.absorbing([Conflict("app/main.py", 1, "root", root="py:app.util")], index)
    assert again == kept  # nothing new kept: the rounds stop here
    assert len(again.log) == 2  # and the conflict that asked again is logged
    more = kept.absorbing([Conflict("app/util.py", 1, "root", root="py:app.main")], index)
    assert more != kept


def test_a_state_cannot_be_edited_in_place():
    state = Retained()
    with pytest.raises(AttributeError):
        state.roots = frozenset({"py:app"})  # type: ignore[misc]
