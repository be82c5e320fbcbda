"""``depgraph why --manifest OUT/manifest.json ITEM`` (issue 27, item 5): the answer of a
re-scanning ``why``, from the manifest, fast. Live items and roots must read word for word as
the scan's answer; dead ones give the plan's deletions and their reasons (mini_sglang, root
deepseek_v2: flashmla_backend.py is the dropped flashmla feature's backend, nothing imports
it; models/llama.py is a model not served; utils/common.py's unused_helper is called by
nothing)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from tests.helpers import MINI_SGLANG, SAMPLES

BLOCKER_STORY = SAMPLES / "blocker_story"


def run(*args: str | Path) -> tuple[int, str, str]:
    got = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in got.output
    return got.exit_code, got.stdout, got.stderr


@pytest.fixture(scope="module")
def manifests(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("why")
    code, _, err = run("scan", MINI_SGLANG, "--roots", "deepseek_v2", "--no-cache", "--out",
                       out / "mini", "--format", "json")
    assert code == 0, err
    code, _, err = run("scan", BLOCKER_STORY, "--no-cache", "--out", out / "bs", "--format",
                       "json")
    assert code == 0, err
    return {"mini": out / "mini" / "manifest.json", "bs": out / "bs" / "manifest.json"}


@pytest.mark.parametrize(("sample", "item"), [
    ("mini", "minisgl.srt.server_args"),  # a live module, a chain from a root
    ("mini", "deepseek_v2"),  # a root named by --roots
    ("mini", "mini_kernel.flash_attn:is_fa3_supported"),  # blocked (fa3): edits that free it
    ("mini", "minisgl.srt.models.deepseek_v2:DeepseekV2ForCausalLM.forward"),  # a method
    ("mini", "python/minisgl/srt/server_args.py"),  # a file path
    ("bs", "app.fa3"),  # blocked by a default that selects its key
    ("bs", "app.main:main"),  # a profile entry point
    ("bs", "tests/test_fa3.py"),  # a test that stays
])
def test_live_answers_read_as_the_scan(manifests: dict[str, Path], sample: str,
                                       item: str) -> None:
    tree = MINI_SGLANG if sample == "mini" else BLOCKER_STORY
    extra = ("--roots", "deepseek_v2") if sample == "mini" else ()
    code, scanned, err = run("why", tree, item, "--no-cache", *extra)
    assert code == 0, err
    code, fast, err = run("why", "--manifest", manifests[sample], item)
    assert code == 0, err
    assert fast == scanned


def test_dead_answers_give_the_plans_reasons(manifests: dict[str, Path]) -> None:
    _, out, _ = run("why", "--manifest", manifests["mini"], "flashmla_backend")
    assert out.splitlines() == [
        "minisgl.srt.layers.attention.flashmla_backend "
        "(python/minisgl/srt/layers/attention/flashmla_backend.py) is dead: the plan deletes it.",
        "It belongs to dropped feature flashmla.",
        "  python/minisgl/srt/layers/attention/flashmla_backend.py: unreachable from roots"]
    _, out, _ = run("why", "--manifest", manifests["mini"], "unused_helper")
    assert out.splitlines() == [
        "minisgl.srt.utils.common:unused_helper is dead: the plan deletes it.",
        "  python/minisgl/srt/utils/common.py:17-20: function unused_helper is not referenced "
        "by live code"]
    _, out, _ = run("why", "--manifest", manifests["mini"], "llama")
    assert out.startswith("minisgl.srt.models.llama (python/minisgl/srt/models/llama.py) is "
                          "dead: the plan deletes it.\n")


def test_unknown_items_exit_like_why(manifests: dict[str, Path]) -> None:
    code, _, err = run("why", "--manifest", manifests["mini"], "server_arg")
    assert code == 4
    assert err.strip() == ("depgraph: error: unknown target 'server_arg' in manifest.json; "
                           "did you mean: minisgl.srt.server_args")


def test_it_answers_fast(manifests: dict[str, Path]) -> None:
    started = time.perf_counter()
    code, _, _ = run("why", "--manifest", manifests["mini"], "minisgl.srt.server_args")
    assert code == 0 and time.perf_counter() - started < 1.0


def test_a_manifest_without_why_data_says_so(tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text('{"deletions": [], "totals": {}}')
    code, _, err = run("why", "--manifest", tmp_path / "m.json", "x")
    assert code == 3 and "records no why data" in err


def test_why_takes_the_current_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BLOCKER_STORY)
    code, out, err = run("why", "app.model", "--no-cache")
    assert code == 0, err
    assert out.startswith("app.model (app/model.py) is live:")
