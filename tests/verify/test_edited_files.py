"""Verify, the edited files read beside the scan (analyzer.verify.edited): the same answers
whether workers read them in the background or this process does, and the checks use them."""

from __future__ import annotations

from pathlib import Path

from analyzer.pipeline.scan import run_scan
from analyzer.verify.checks import check_compiles
from analyzer.verify.edited import EditedFile, EditedFiles, compile_error, lint_source
from tests.helpers import write_tree

# ten files: enough for the worker processes (fewer are read in this process)
FILES = {f"pkg/m{i}.py": f"import os\n\n\ndef f{i}():\n    return os.sep + undefined_{i}\n"
         for i in range(10)}
FILES["pkg/__init__.py"] = ""
FILES["pkg/broken.py"] = "def f(:\n    pass\n"


def test_background_and_foreground_read_the_same(tmp_path: Path) -> None:
    root = write_tree(tmp_path, FILES)
    paths = sorted([*FILES, "pkg/gone.py"])  # gone.py: deleted by the pruning
    reading = EditedFiles(root, paths, jobs=2)
    reading.start()
    reading.start()  # (once: a second start submits nothing again)
    background = reading.results()
    here = EditedFiles(root, paths, jobs=1).results()
    not_started = EditedFiles(root, paths, jobs=2).results()  # read when asked, on 2 cores
    assert not_started == here
    assert background == here
    assert "pkg/gone.py" not in background
    m3 = background["pkg/m3.py"]
    assert m3.compile_error is None
    assert m3.lint is not None and dict(m3.lint.undefined) == {"undefined_3": 1}
    assert m3.lint.module_names == {"os", "f3"}
    broken = background["pkg/broken.py"]
    assert broken.lint is None  # does not parse
    assert broken.compile_error is not None and broken.compile_error[0] == 1


def test_closed_before_the_results_reads_nothing_twice(tmp_path: Path) -> None:
    root = write_tree(tmp_path, FILES)
    reading = EditedFiles(root, sorted(FILES), jobs=2)
    reading.start()
    reading.close()  # (a scan that failed): the workers stop, nothing is left running
    reading.close()


def test_helpers_answer_as_python_does() -> None:
    assert compile_error(b"x = 1\n", "a.py") is None
    assert compile_error(b"x = (\n", "a.py") == (1, "'(' was never closed")
    assert compile_error(b"x = 1\0\n", "a.py") is not None  # a NUL byte: ValueError or
    #                                                         SyntaxError, by Python version
    lint = lint_source(b"import sys\nprint(y)\n", "a.py")
    assert lint is not None and dict(lint.undefined) == {"y": 1}
    assert lint_source(b"def (:\n", "a.py") is None


def test_compile_check_takes_the_known_answer(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"app/__init__.py": "", "app/a.py": "x = 1\n",
                                 "app/b.py": "x = (\n"})
    result = run_scan(root, [], use_profile=False)
    paths = {"app/a.py", "app/b.py"}
    assert [str(p) for p in check_compiles(result, paths)] == [
        "app/b.py:1: does not compile: '(' was never closed"]
    # an answer read beside the scan is not computed again (here: a.py said not to compile)
    known = {"app/a.py": EditedFile(None, (3, "told so"))}
    assert [str(p) for p in check_compiles(result, paths, known)] == [
        "app/a.py:3: does not compile: told so",
        "app/b.py:1: does not compile: '(' was never closed"]


def test_verify_starts_reading_after_extraction() -> None:
    from analyzer.pipeline.scan import RunSettings
    from analyzer.pipeline.verify import _starting_after_extraction

    class Reading:
        started = 0

        def start(self) -> None:
            self.started += 1

    heard: list[str] = []
    reading = Reading()
    settings = _starting_after_extraction(RunSettings(jobs=2, stage=heard.append),
                                          reading)  # type: ignore[arg-type]
    assert settings.stage is not None
    settings.stage("discover")
    settings.stage("extract")
    assert reading.started == 0  # extraction's workers have every core
    settings.stage("resolve")
    assert reading.started == 1
    assert heard == ["discover", "extract", "resolve"]  # the progress line still hears all
