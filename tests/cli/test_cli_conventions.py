"""Command-line conventions (issue 51, item 6): -h as well as --help, every option says what
it does, one line and exit 3 for a manifest that cannot be read (apply, why, verify alike),
and ``why`` / ``verify`` answer in JSON with --format json.

mini_sglang with root deepseek_v2 (tests/cli/test_why_manifest.py): server_args is live
through a chain from the root; is_fa3_supported is blocked (dropped fa3) and live;
models/llama.py is a model not served: the plan deletes the file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from tests.helpers import MINI_SGLANG

COMMANDS = ["scan", "why", "verify", "apply", "graph", "init"]


def run(*args: str | Path) -> tuple[int, str, str]:
    got = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in got.output
    return got.exit_code, got.stdout, got.stderr


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)])
def test_dash_h_is_help(command: list[str]) -> None:
    code, out, _ = run(*command, "-h")
    assert code == 0
    assert out.startswith("Usage: ") and ("-h, --help" in out)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_says_what_it_does(command: str) -> None:
    cmd = main.get_command(click.Context(main), command)
    assert cmd is not None
    for param in cmd.params:
        if isinstance(param, click.Option):
            text = param.help or ""
            assert len(text) > 10 and "README" not in text, (command, param.opts, text)


@pytest.mark.parametrize("args", [["apply", "{m}"], ["why", "--manifest", "{m}", "x"],
                                  ["verify", ".", "--before", "{m}"]])
def test_a_manifest_that_cannot_be_read_is_one_line_and_exit_3(tmp_path: Path,
                                                              args: list[str]) -> None:
    missing = tmp_path / "nope.json"
    code, _, err = run(*[a.replace("{m}", str(missing)) for a in args])
    assert code == 3
    assert err == f"depgraph: error: cannot read manifest {missing}: No such file or directory\n"
    code, _, err = run(*[a.replace("{m}", str(tmp_path)) for a in args])
    assert code == 3
    assert err.startswith(f"depgraph: error: cannot read manifest {tmp_path}: it is a folder")


@pytest.fixture(scope="module")
def mini_manifest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("conv")
    code, _, err = run("scan", MINI_SGLANG, "--roots", "deepseek_v2", "--no-cache", "--out",
                       out, "--format", "json")
    assert code == 0, err
    return out / "manifest.json"


@pytest.mark.parametrize("from_manifest", [True, False])
def test_why_answers_in_json(mini_manifest: Path, from_manifest: bool) -> None:
    def ask(item: str) -> dict[str, object]:
        where = ["--manifest", mini_manifest] if from_manifest else [
            MINI_SGLANG, "--roots", "deepseek_v2", "--no-cache"]
        code, out, err = run("why", *where[:1 if not from_manifest else 2],
                             item, *where[1 if not from_manifest else 2:], "--format", "json")
        assert code == 0, err
        got = json.loads(out)
        assert isinstance(got, dict)
        return got

    live = ask("minisgl.srt.server_args")
    assert live["status"] == "live" and live["feature"] is None
    chain = live["chain"]
    assert isinstance(chain, list) and chain[0].startswith("root ")
    assert "minisgl.srt.server_args" in chain[-1]
    blocked = ask("mini_kernel.flash_attn:is_fa3_supported")
    assert blocked["status"] == "live" and blocked["feature"] == "fa3"
    assert blocked["to_free"]
    dead = ask("python/minisgl/srt/models/llama.py" if from_manifest
               else "minisgl.srt.models.llama")
    assert dead["status"] == "dead" and dead["deletions"]


def test_verify_answers_in_json(tmp_path: Path, mini_manifest: Path) -> None:
    tree = tmp_path / "t"
    shutil.copytree(MINI_SGLANG, tree)
    code, _, err = run("apply", mini_manifest, "--root", tree, "--write", "--no-cache")
    assert code == 0, err
    code, out, err = run("verify", tree, "--before", mini_manifest, "--no-cache",
                         "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["ok"] is True and got["problems"] == []
    before, after = got["before"], got["after"]
    # the plan deletes whole Python files (llama.py, flashmla_backend.py, ...)
    assert after["python_files"] < before["python_files"]
    # a broken tree: the module deepseek_v2 imports, deleted by hand
    (tree / "python/minisgl/srt/server_args.py").unlink()
    code, out, _ = run("verify", tree, "--before", mini_manifest, "--no-cache",
                       "--format", "json")
    assert code == 8
    got = json.loads(out)
    assert got["ok"] is False
    assert any("server_args" in p["what"] or "server_args" in p["path"]
               for p in got["problems"])
