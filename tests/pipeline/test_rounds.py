"""The pipeline's rounds: the plan's own import deletions feed the next round (a fixpoint),
so a re-scan of the applied tree finds nothing more."""

from __future__ import annotations

from pathlib import Path

from analyzer.pipeline.scan import run_scan
from tests.helpers import store_entries, write_tree


def test_a_module_only_an_unused_import_reaches_goes_in_the_same_scan(tmp_path: Path):
    # app.main imports app.helpers.unused_name and never reads it; app.helpers is imported
    # by nothing else: the import goes, and so (next round) does app/helpers.py
    tree = write_tree(tmp_path / "t", {
        "app/__init__.py": "",
        "app/__main__.py": "from app.main import run\n\nrun()\n",
        "app/main.py": "from app.helpers import unused_name\n\n\ndef run():\n    return 1\n",
        "app/helpers.py": "def unused_name():\n    return 2\n",
    })
    result = run_scan(tree, [], use_profile=False)
    planned = {(d.kind, d.path, d.start_line) for d in result.plan.deletions}
    assert planned == {("delete_range", "app/main.py", 1), ("delete_file", "app/helpers.py", None)}


def test_a_side_effect_import_keeps_its_module(tmp_path: Path):
    # `import app.plugins` binds `app`, read nowhere, but importing runs app/plugins.py: kept
    tree = write_tree(tmp_path / "t", {
        "app/__init__.py": "",
        "app/__main__.py": "from app.main import run\n\nrun()\n",
        "app/main.py": "import app.plugins\n\n\ndef run():\n    return 1\n",
        "app/plugins.py": "REGISTRY = {}\n",
    })
    result = run_scan(tree, [], use_profile=False)
    assert result.plan.deletions == []


def test_a_rescan_with_the_check_cached_plans_and_lints_alike(tmp_path: Path):
    # the tree of the first test: round one edits both files (the unused import, the
    # function nothing live reads), round two deletes app/helpers.py whole; a second scan
    # answers the check of both rounds from the cache and must plan and lint alike (run
    # from nothing: where the first scan's rounds settled is removed, else the second runs
    # only the settling round, analyzer.pipeline.settled)
    tree = write_tree(tmp_path / "t", {
        "app/__init__.py": "",
        "app/__main__.py": "from app.main import run\n\nrun()\n",
        "app/main.py": ("from app.helpers import unused_name\n\n\n"
                        "def run():\n    return 1\n"),
        "app/helpers.py": "def unused_name():\n    return 2\n",
    })
    cache = tmp_path / "cache"
    first = run_scan(tree, [], use_profile=False, cache_dir=cache)
    assert store_entries(cache, "check")  # the check's lints were kept
    for settled in store_entries(cache, "settling"):
        settled.unlink()
    second = run_scan(tree, [], use_profile=False, cache_dir=cache)
    assert second.plan.deletions == first.plan.deletions
    assert second.lint_before == first.lint_before == {"app/main.py": {}, "app/helpers.py": {}}


def _inject(monkeypatch, conflict) -> None:
    """Every check of the rounds also reports ``conflict`` (what a real check cannot be made
    to say on a tree this small) while the plan keeps the file it is in."""
    from analyzer.pipeline import rounds

    real = rounds.check_plan

    def check_plan(plan, *args, **kwargs):
        found = real(plan, *args, **kwargs)
        if any(d.kind == "delete_file" and d.path == conflict.path for d in plan.deletions):
            return found
        return [*found, conflict]
    monkeypatch.setattr(rounds, "check_plan", check_plan)


FIXPOINT_TREE = {
    "app/__init__.py": "",
    "app/__main__.py": "from app.main import run\n\nrun()\n",
    "app/main.py": "from app.helpers import unused_name\n\n\ndef run():\n    return 1\n",
    "app/helpers.py": "def unused_name():\n    return 2\n",
    "app/extra.py": "def extra():\n    return 3\n",
}


def test_a_conflict_no_round_can_settle_does_not_stop_the_fixpoint(tmp_path, monkeypatch):
    # a break whose node to keep is in no graph comes back every round: its deletion (none)
    # is dropped as a last resort, and the rounds still go on to free app/helpers.py
    from analyzer.plan.check import Conflict

    _inject(monkeypatch, Conflict("app/main.py", 1, "a break nothing can keep",
                                  root="py:nowhere.at_all"))
    result = run_scan(write_tree(tmp_path / "t", FIXPOINT_TREE), [], use_profile=False)
    planned = {(d.kind, d.path, d.start_line) for d in result.plan.deletions}
    assert planned == {("delete_range", "app/main.py", 1), ("delete_file", "app/helpers.py", None),
                       ("delete_file", "app/extra.py", None)}
