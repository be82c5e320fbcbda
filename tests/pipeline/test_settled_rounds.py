"""Where the rounds settled, kept per inputs (``analyzer.pipeline.settled``): every run of
the rounds from nothing -- the scan's plan, each plan under other drops (the shares, what
frees a blocked feature), the gate's copy -- starts where rounds over the same files,
profile, options and parsed files settled, and runs that one round, with the answer of
rounds run from nothing.

On sample_repos/what_frees (see tests/plan/test_what_frees.py for what it holds): flashmla is
dropped and blocked by the NSA backend, so what frees it plans the tree with nsa dropped too;
a later ``--drop nsa`` is that plan. On sample_repos/share_seeks (its README): only the plan
keeping accel asks for the attribute lazy/toggle.py sets, so that counted file is parsed."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from analyzer.pipeline.rounds import Rounds
from analyzer.pipeline.scan import run_scan
from analyzer.result import ScanResult
from tests.helpers import SAMPLES, scanned_copy, store_entries


@pytest.fixture(autouse=True)
def answers_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """The later cut-offs off: the gate's verdicts kept (``pipeline.gate_verdicts``) and the
    answers of plans under other drops kept (``pipeline.plans_kept``) would skip the rounds
    these tests count; here every plan runs its rounds, as where those miss."""
    import analyzer.pipeline.frees as frees
    import analyzer.pipeline.gate as gate
    import analyzer.pipeline.shares as shares

    def made(_rounds: object, _drop: object, _keep: object, _fetched_for: object,
             make: Any) -> Any:
        return make()

    monkeypatch.setattr(gate, "kept_verdict", lambda _key: None)
    monkeypatch.setattr(shares, "answer_under", made)
    monkeypatch.setattr(frees, "answer_under", made)


@pytest.fixture
def rounds_per_run(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rounds each :meth:`Rounds.run` ran, in this process (one job: every plan here)."""
    runs: list[int] = []
    real_run, real_round = Rounds.run, Rounds._round

    def run(self: Rounds, state: Any = None) -> Any:
        runs.append(0)
        return real_run(self, state)

    def one_round(self: Rounds, state: Any) -> Any:
        runs[-1] += 1
        return real_round(self, state)

    monkeypatch.setattr(Rounds, "run", run)
    monkeypatch.setattr(Rounds, "_round", one_round)
    return runs


def _answer(result: ScanResult) -> tuple[object, ...]:
    """What a scan answers: its deletions with their labels, each feature's row, what frees
    it, the rounds' log, the files parsed on a second pass, the verified baseline."""
    return ({(d.kind, d.path, d.start_line, d.end_line, d.features, d.with_features, d.after)
             for d in result.plan.deletions},
            [(f.name, f.files_removable, f.lines_removable, len(f.blocked))
             for f in result.features],
            result.freeing, [str(c) for c in result.conflicts], result.reparsed,
            result.verified)


def test_a_scan_again_runs_one_round_per_plan(tmp_path: Path,
                                              rounds_per_run: list[int]) -> None:
    cache = tmp_path / "cache"
    first = run_scan(SAMPLES / "what_frees", [], cache_dir=cache)
    from_nothing = list(rounds_per_run)
    # the scan's plan, the shares' plans, what frees flashmla (two plans), the gate's copy
    assert len(from_nothing) >= 5 and any(n > 1 for n in from_nothing)
    kept = store_entries(cache, "settling")
    assert kept
    rounds_per_run.clear()
    again = run_scan(SAMPLES / "what_frees", [], cache_dir=cache)
    assert rounds_per_run == [1] * len(from_nothing)
    assert _answer(again) == _answer(first)
    assert store_entries(cache, "settling") == kept  # (the same keys: nothing added)


def test_a_further_drop_starts_where_what_frees_planned_it(
        tmp_path: Path, rounds_per_run: list[int]) -> None:
    cache = tmp_path / "cache"
    run_scan(SAMPLES / "what_frees", [], cache_dir=cache)
    rounds_per_run.clear()
    resumed = run_scan(SAMPLES / "what_frees", [], cache_dir=cache, drop=("nsa",))
    first_run = rounds_per_run[0]
    rounds_per_run.clear()
    scratch = run_scan(SAMPLES / "what_frees", [], drop=("nsa",))  # no cache: from nothing
    assert first_run == 1 < rounds_per_run[0]
    assert _answer(resumed) == _answer(scratch)


def test_the_same_plan_in_other_words_starts_where_it_settled(
        tmp_path: Path, rounds_per_run: list[int]) -> None:
    # `--drop nsa --keep nsa` is the default plan (nsa is kept; the profile fixes no constant
    # nsa would un-fix): its rounds, its share's (keeping flashmla: nothing dropped, the
    # default scan's share too) and the gate's copy (the same pruned tree) start where the
    # default scan's settled; what frees flashmla tries no drop (nsa is kept)
    cache = tmp_path / "cache"
    run_scan(SAMPLES / "what_frees", [], cache_dir=cache)
    rounds_per_run.clear()
    resumed = run_scan(SAMPLES / "what_frees", [], cache_dir=cache, drop=("nsa",),
                       keep=("nsa",))
    assert rounds_per_run == [1, 1, 1, 1]  # the scan's, the two shares', the gate's copy
    rounds_per_run.clear()
    scratch = run_scan(SAMPLES / "what_frees", [], drop=("nsa",), keep=("nsa",))
    assert rounds_per_run[0] > 1
    assert _answer(resumed) == _answer(scratch)


def test_the_key_holds_the_drops_and_constants_not_the_options() -> None:
    # mini_sglang drops fa3, flashmla and ascend by default; ascend names the profile's
    # constant is_npu, which keeping ascend un-fixes
    from analyzer.config.options import ScanOptions
    from analyzer.config.profile import merge_drops
    from analyzer.decide.profile_facts import profile_use
    from analyzer.pipeline.inputs import gather_inputs
    from analyzer.pipeline.settled import settling_key

    inputs = gather_inputs(SAMPLES / "mini_sglang", ScanOptions())
    profile = inputs.profile
    assert profile is not None
    index: Any = SimpleNamespace(modules={})  # (no module's digest: each file by its bytes)

    def key(drop: tuple[str, ...] = (), keep: tuple[str, ...] = ()) -> str | None:
        options = ScanOptions(drop=drop, keep=keep)
        return settling_key(inputs, options, frozenset(),
                            profile_use(profile, merge_drops(profile, drop, keep)), index)

    every = ("fa3", "flashmla", "ascend")
    assert key() == key(drop=("fa3",))  # (dropped already)
    assert key(keep=every) == key(drop=("ascend",), keep=every)  # nothing dropped
    assert key() != key(keep=("fa3",))
    # the same features dropped, but is_npu un-fixed: another plan
    assert key(keep=("ascend",)) != settling_key(
        inputs, ScanOptions(), frozenset(), profile_use(profile, ("fa3", "flashmla")), index)
    assert settling_key(inputs, ScanOptions(), None, profile_use(profile, every),
                        index) is None


def test_another_file_is_other_inputs(tmp_path: Path, rounds_per_run: list[int]) -> None:
    tree, cache, _ = scanned_copy(SAMPLES / "what_frees", tmp_path)
    from_nothing = list(rounds_per_run)
    backend = tree / "app" / "nsa_backend.py"
    backend.write_text(backend.read_text() + "EDITED = True\n")  # a new definition
    rounds_per_run.clear()
    run_scan(tree, [], cache_dir=cache)
    assert rounds_per_run[0] == from_nothing[0] > 1


def _deletions(result: ScanResult) -> list[tuple[object, ...]]:
    """Every field of every deletion (the bytes' hash and the line count among them)."""
    return sorted((d.kind, d.path, d.sha256, d.lines, d.start_line, d.end_line, d.reason,
                   d.features, d.with_features, d.after) for d in result.plan.deletions)


def test_a_comment_edit_keeps_where_the_rounds_settled(
        tmp_path: Path, rounds_per_run: list[int]) -> None:
    # the early cut-off: a comment appended to app/flashmla_backend.py (deleted whole: 6
    # lines, 8 after the edit) and one appended to app/flashmla_kernels.py (two of its
    # functions deleted) change no fact and no line of code, so every plan starts where the
    # last scan's settled -- and reports the files as they are now
    tree, cache, first = scanned_copy(SAMPLES / "what_frees", tmp_path)
    runs = len(rounds_per_run)
    backend, kernels = tree / "app" / "flashmla_backend.py", tree / "app" / "flashmla_kernels.py"
    backend.write_text(backend.read_text() + "\n# edited\n")
    kernels.write_text(kernels.read_text() + "# edited too\n")
    rounds_per_run.clear()
    resumed = run_scan(tree, [], cache_dir=cache)
    assert rounds_per_run == [1] * runs
    rounds_per_run.clear()
    scratch = run_scan(tree, [])  # no cache: from nothing
    assert rounds_per_run[0] > 1
    assert _answer(resumed) == _answer(scratch)
    assert _deletions(resumed) == _deletions(scratch) != _deletions(first)
    assert [(f.name, f.files_removable, f.lines_removable) for f in first.features] == [
        ("flashmla", 1, 16)]
    assert [(f.name, f.files_removable, f.lines_removable) for f in resumed.features] == [
        ("flashmla", 1, 18)]  # (the backend's two lines more)
    whole = [d for d in resumed.plan.deletions if d.path == "app/flashmla_backend.py"]
    assert [(d.kind, d.lines, d.sha256) for d in whole] == [
        ("delete_file", 8, hashlib.sha256(backend.read_bytes()).hexdigest())]


def test_a_comment_that_moves_a_fact_is_other_inputs(
        tmp_path: Path, rounds_per_run: list[int]) -> None:
    # a comment line above the registrations in app/backends.py moves every line after it
    tree, cache, _ = scanned_copy(SAMPLES / "what_frees", tmp_path)
    from_nothing = list(rounds_per_run)
    backends = tree / "app" / "backends.py"
    backends.write_text("# registrations\n" + backends.read_text())
    rounds_per_run.clear()
    moved = run_scan(tree, [], cache_dir=cache)
    assert rounds_per_run[0] == from_nothing[0] > 1
    assert [(d.start_line, d.end_line) for d in moved.plan.deletions
            if d.path == "app/backends.py"] == [(19, 23)]  # (18-22 before the edit)


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_names_sought_are_sought_again(tmp_path: Path, jobs: int) -> None:
    # the second scan's plans start where the first's settled: the attribute only the plan
    # keeping accel asks for is still asked for, so lazy/toggle.py is parsed again
    cache = tmp_path / "cache"
    first = run_scan(SAMPLES / "share_seeks", [], cache_dir=cache, jobs=jobs)
    again = run_scan(SAMPLES / "share_seeks", [], cache_dir=cache, jobs=jobs)
    assert first.reparsed == again.reparsed == {"lazy/toggle.py"}
    assert _answer(again) == _answer(first)


def test_the_stored_start_notes_the_names_its_rounds_sought(tmp_path: Path) -> None:
    # a name an earlier round sought may be one only a counted file defines: the rounds
    # started at the settling round do not ask for it again, so the stored start does
    from analyzer.core.session import session
    from analyzer.pipeline.rounds_state import Retained
    from analyzer.pipeline.settled import keep_start, stored_start

    first = SimpleNamespace(sought_by_name={"enable_turbo", "use_fast_path"})
    later = SimpleNamespace(sought_by_name={"other"})
    with session(tmp_path / "cache"):
        keep_start("k", Retained(), first)  # type: ignore[arg-type]
        assert stored_start("k", later) == Retained()  # type: ignore[arg-type]
        assert later.sought_by_name == {"other", "enable_turbo", "use_fast_path"}
        assert stored_start("missing", later) is None
        assert stored_start(None, later) is None
    with session(None):  # no store: nothing kept, nothing found
        keep_start("k", Retained(), first)  # type: ignore[arg-type]
        assert stored_start("k", later) is None
