"""CLI behaviour: outputs, documented exit codes, one-line errors on bad input, no tracebacks."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from tests.helpers import MINI_SGLANG, write_tree

GOOD = {
    "python/app/__init__.py": "",
    "python/app/main.py": "from app.util import helper\n\n\ndef run():\n    return helper()\n",
    "python/app/util.py": "def helper():\n    return 1\n\n\ndef unused():\n    return 2\n",
    "python/pyproject.toml": '[project]\nname = "app"\n[project.scripts]\napp = "app.main:run"\n',
    # the roots a scan needs (a scan without any is an error): the config names them
    "depgraph.toml": 'roots = ["app.main"]\n',
}


def invoke(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


def test_scan_writes_manifest_and_report(tmp_path):
    repo = write_tree(tmp_path / "repo", GOOD)
    out = tmp_path / "out"
    result = invoke("scan", str(repo), "--out", str(out))
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["schema_version"] == 1
    assert manifest["root"] == str(repo.resolve())
    assert manifest["roots"] == ["app.main"]
    assert manifest["deletions"] == [{
        "kind": "delete_range", "path": "python/app/util.py",
        "sha256": manifest["deletions"][0]["sha256"], "start_line": 5, "end_line": 6,
        "lines": 2, "symbol": "app.util:unused", "category": "python-symbol", "feature": "",
        "features": [], "with_features": [],
        "reason": "function unused is not referenced by live code"}]
    import hashlib
    assert manifest["deletions"][0]["sha256"] == hashlib.sha256(
        GOOD["python/app/util.py"].encode()).hexdigest()
    html = (out / "report.html").read_text()
    assert "python/app/util.py" in html and 'id="total-lines">2<' in html


def test_demo_scans_the_bundled_sample(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("scan", "--demo")
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "depgraph-out" / "manifest.json").read_text())
    assert manifest["roots"] == ["deepseek_v2"]
    assert manifest["root"] == str(MINI_SGLANG.resolve())
    assert (tmp_path / "depgraph-out" / "report.html").is_file()


def test_demo_takes_no_path(tmp_path):
    result = invoke("scan", "--demo", str(tmp_path))
    assert result.exit_code == 2
    assert "--demo scans the bundled sample repo" in result.output


def test_scan_without_path_scans_the_current_folder(tmp_path, monkeypatch):
    """As ruff, knip and vulture: no PATH is the current folder, with its depgraph.toml."""
    repo = write_tree(tmp_path / "repo", {**GOOD, "depgraph.toml": 'roots = ["app.util"]\n'})
    monkeypatch.chdir(repo)
    result = invoke("scan", "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["root"] == str(repo.resolve())
    assert manifest["roots"] == ["app.util"]  # the folder's own config was read
    # unused() is now live (its module is a root): nothing of util.py goes
    assert [d["path"] for d in manifest["deletions"]] == []


def test_graph_and_verify_default_to_the_current_folder(tmp_path, monkeypatch):
    repo = write_tree(tmp_path / "repo", GOOD)
    monkeypatch.chdir(repo)
    result = invoke("verify")
    assert result.exit_code == 0, result.output
    assert "verify: OK" in result.output
    result = invoke("graph", "--format", "json")
    assert result.exit_code == 0, result.output
    assert "app.util:unused" in result.output


@pytest.mark.parametrize(("args", "code", "message"), [
    (("scan", "/nonexistent/repo"), 3, "does not exist"),
    (("scan", str(MINI_SGLANG), "--roots", "deepseek_v3"), 4, "did you mean: deepseek_v2"),
    (("scan", str(MINI_SGLANG), "--roots", "minisgl.srt.models:Nope"), 4, "unknown root"),
])
def test_errors_are_one_line_with_documented_codes(args, code, message, tmp_path):
    result = invoke(*args, "--out", str(tmp_path / "o"))
    assert result.exit_code == code
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("depgraph: error: "), result.output
    assert message in lines[0]


def test_ambiguous_root_lists_candidates(tmp_path):
    repo = write_tree(tmp_path / "repo", {
        "pkg/__init__.py": "", "pkg/a/__init__.py": "", "pkg/a/model.py": "",
        "pkg/b/__init__.py": "", "pkg/b/model.py": ""})
    result = invoke("scan", str(repo), "--roots", "model", "--out", str(tmp_path / "o"))
    assert result.exit_code == 4
    assert "ambiguous root 'model'" in result.output
    assert "pkg.a.model, pkg.b.model" in result.output


def test_no_python_is_an_input_error(tmp_path):
    repo = write_tree(tmp_path / "repo", {"README.md": "hi\n", "src/kernel.cu": "int x;\n"})
    result = invoke("scan", str(repo), "--out", str(tmp_path / "o"))
    assert result.exit_code == 3
    assert "no Python files" in result.output


def test_file_instead_of_directory(tmp_path):
    f = tmp_path / "file.py"
    f.write_text("x = 1\n")
    result = invoke("scan", str(f), "--out", str(tmp_path / "o"))
    assert result.exit_code == 3


def test_bad_files_are_listed_and_the_scan_completes(tmp_path):
    repo = write_tree(tmp_path / "repo", {
        **GOOD,
        "python/app/broken.py": "from app.util import helper\ndef broken(:\n    pass\n",
        "python/app/latin.py": b"name = '\xe9t\xe9'\n",
        "python/app/blob.py": b"\x7fELF\x02\x01\x01\x00\x00\x00",
        "python/app/locked.py": "x = 1\n",
    })
    os.symlink("loop_b", repo / "python/app/loop_a.py")
    os.symlink("loop_a.py", repo / "python/app/loop_b")
    locked = repo / "python/app/locked.py"
    locked.chmod(0)
    out = tmp_path / "out"
    result = invoke("scan", str(repo), "--out", str(out))
    locked.chmod(0o644)
    assert result.exit_code == 0, result.output
    html = (out / "report.html").read_text()
    kinds = {line.split(": ")[2] for line in result.output.splitlines()
             if line.startswith("warning: ") and line.count(": ") >= 3}
    assert {"syntax-error", "invalid-utf8", "binary", "symlink-loop"} <= kinds, result.output
    if not os.access(locked, os.R_OK) or os.geteuid() != 0:
        assert "unreadable" in kinds
    for path in ("python/app/broken.py", "python/app/latin.py", "python/app/blob.py"):
        assert path in html
    # a file that did not parse is kept (unresolved), never planned; the facts tree-sitter
    # still extracted from it count: its import keeps util.helper live
    manifest = json.loads((out / "manifest.json").read_text())
    planned = {(d["path"], d.get("symbol")) for d in manifest["deletions"]}
    assert not any(path == "python/app/broken.py" for path, _ in planned)
    assert ("python/app/util.py", "app.util:helper") not in planned
    # (it is a root: what it imports stays, and why says so)
    why = invoke("why", "--manifest", str(out / "manifest.json"), "app.broken")
    assert why.exit_code == 0 and "is live" in why.output, why.output


def test_why_prints_a_chain(tmp_path):
    result = invoke("why", str(MINI_SGLANG), "minisgl.srt.layers.attention.triton_backend",
                    "--roots", "deepseek_v2", "--no-profile")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("minisgl.srt.layers.attention.triton_backend")
    assert "is live" in lines[0]
    assert lines[1].startswith("root ")
    assert any("registered at python/minisgl/srt/layers/attention/attention_registry.py:12"
               in line for line in lines)


def test_fail_on_removable_and_format_selection(tmp_path):
    repo = write_tree(tmp_path / "repo", GOOD)
    out = tmp_path / "out"
    result = invoke("scan", str(repo), "--out", str(out), "--format", "json",
                    "--fail-on-removable")
    assert result.exit_code == 1  # app.util.unused is removable
    assert (out / "manifest.json").is_file() and not (out / "report.html").exists()
    clean = write_tree(tmp_path / "clean", {**GOOD, "python/app/util.py":
                                            "def helper():\n    return 1\n"})
    assert invoke("scan", str(clean), "--out", str(out), "--fail-on-removable").exit_code == 0


@pytest.mark.parametrize("command", ["scan", "apply", "why", "verify", "graph", "init"])
def test_every_command_has_version_quiet_and_verbose(command: str) -> None:
    from analyzer import __version__

    result = invoke(command, "--version")
    assert result.exit_code == 0 and result.output == f"depgraph, version {__version__}\n"
    help_text = invoke(command, "--help").output
    assert "-q, --quiet" in help_text and "-v, --verbose" in help_text


def test_quiet_commands_print_nothing_but_the_answer(tmp_path, monkeypatch) -> None:
    repo = write_tree(tmp_path / "repo", GOOD)
    monkeypatch.chdir(repo)
    scanned = invoke("scan", "-q", "--no-cache", "--out", str(tmp_path / "o"))
    assert scanned.exit_code == 0 and scanned.output == ""
    verified = invoke("verify", "-q", "--no-cache")
    assert verified.exit_code == 0 and verified.output == "verify: OK\n"
    applied = invoke("apply", "-q", str(tmp_path / "o" / "manifest.json"))
    assert applied.exit_code == 0 and applied.stderr == ""
    # the dry run's answer, from the manifest alone: what would change
    assert applied.stdout == ("would edit python/app/util.py: 2 lines by the plan's count "
                              "(1 entry)\n")
    diffed = invoke("apply", "-q", "--diff", str(tmp_path / "o" / "manifest.json"))
    assert diffed.stdout.startswith("--- a/python/app/util.py")  # the diff is the answer
    inited = invoke("init", "-q", str(tmp_path))
    assert inited.exit_code == 0 and inited.output == ""


def test_scan_says_what_comes_next(tmp_path) -> None:
    repo = write_tree(tmp_path / "repo", GOOD)
    out = tmp_path / "out"
    result = invoke("scan", str(repo), "--out", str(out), "--no-cache")
    assert result.output.splitlines()[-1] == (
        f"next: depgraph apply {out / 'manifest.json'} --stat   (review; then --write, or "
        "--write --commit: a git commit per feature)")


def test_why_says_what_the_plan_does_with_a_dead_item() -> None:
    # mini_sglang: flashmla_backend.py goes with flashmla (only the dropped flashmla key's
    # registration imported it: with flashmla kept, it stays); llama.py no root serves
    result = invoke("why", str(MINI_SGLANG), "flashmla_backend", "--roots", "deepseek_v2",
                    "--no-cache")
    assert result.exit_code == 0, result.output
    assert "The plan deletes it (delete_file python/minisgl/srt/layers/attention/" \
        "flashmla_backend.py): unreachable from roots. It goes with flashmla (flashmla's " \
        "share: with flashmla kept, it would stay)." in result.output.splitlines()
    result = invoke("why", str(MINI_SGLANG), "minisgl.srt.models.llama", "--roots",
                    "deepseek_v2", "--no-cache")
    assert "The plan deletes it (delete_file python/minisgl/srt/models/llama.py): unreachable " \
        "from roots. Other dead code: it goes with the whole plan, whatever is dropped." \
        in result.output.splitlines()
