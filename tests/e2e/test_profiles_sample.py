"""Profiles on sample_repos/mini_sglang (its depgraph.toml): guards, registries, features.

Expectations come from reading the sample and its profile (default drops fa3, flashmla,
ascend; is_npu false, is_cuda true; attention backends registry; models plugin family):
- layernorm.py: `if _is_npu:` (3-4) folds through `_is_npu = is_npu()` in common.py, the
  `elif is_cuda():` stays and becomes the head, the `else:` (7-8) is unreachable, and the
  method's `if _is_npu:` (13-14) goes;
- model_runner.py: `if is_npu():` (26-27) goes, so load_platform_ops (20-23) and npu_ops.py die;
- attention_registry.py: the fa3 (19-23) and flashmla (26-30) factories lose their registry
  key, and the backends they import die;
- server_args.py line 5: "fa3", "flashmla", "ascend" leave ATTENTION_BACKEND_CHOICES, but
  `from mini_kernel.flash_attn import is_fa3_supported` (line 3) keeps the FA3 wrapper live:
  blocked, with its chain.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from analyzer.cli.main import main
from analyzer.pipeline.scan import run_scan
from tests.helpers import MINI_SGLANG, PY

K = "sgl-kernel"


@pytest.fixture(scope="module")
def pruned():
    return run_scan(MINI_SGLANG, ["deepseek_v2"])


def by_kind(result, kind):
    return {(d.path, d.start_line, d.end_line, d.rewrite, d.feature)
            for d in result.plan.deletions if d.kind == kind}


def test_profile_is_found_and_default_drops_apply(pruned):
    assert pruned.profile.profile.name == "mini_sglang"
    assert pruned.profile.drops == ("fa3", "flashmla", "ascend")
    assert pruned.profile.stale == []


def test_guards_fold_across_modules_and_elif_chains(pruned):
    # a fold on ascend's constant (is_npu = False) counts for ascend; one on the profile's
    # platform constant (is_cuda = True) for no feature
    assert by_kind(pruned, "fold_branch") >= {
        (f"{PY}/layers/layernorm.py", 3, 4, "promote_elif", "ascend"),
        (f"{PY}/layers/layernorm.py", 7, 8, "delete_clause", ""),
        (f"{PY}/layers/layernorm.py", 13, 14, "delete", "ascend"),
        (f"{PY}/model_executor/model_runner.py", 26, 27, "delete", "ascend"),
        # the FA3 wrapper's `try: from mini_kernel import flash_ops` cannot succeed any more
        (f"{K}/python/mini_kernel/flash_attn.py", 5, 7, "try_unwrap", "fa3"),
    }
    # imports in folded branches make no edges: npu_ops is dead, so ascend is removable
    assert "py:minisgl.srt.hardware_backend.npu.npu_ops" not in pruned.liveness.live
    # (load_platform_ops: called only in the folded `if is_npu():`; with ascend kept
    # (`--keep ascend`) its constant is_npu no longer folds that branch, so the function
    # runs: it is ascend's share, as is model_runner.py's import of is_npu)
    assert (f"{PY}/model_executor/model_runner.py", 20, 23, "", "ascend") in by_kind(
        pruned, "delete_range")
    assert (f"{PY}/model_executor/model_runner.py", 7, 7, "", "ascend") in by_kind(
        pruned, "delete_range")


def test_dropped_registry_keys_and_choice_elements(pruned):
    ranges = by_kind(pruned, "delete_range")
    assert (f"{PY}/layers/attention/attention_registry.py", 19, 23, "", "fa3") in ranges
    assert (f"{PY}/layers/attention/attention_registry.py", 26, 30, "", "flashmla") in ranges
    files = {(d.path, d.feature) for d in pruned.plan.deletions if d.kind == "delete_file"}
    assert (f"{PY}/layers/attention/flashattention_backend.py", "fa3") in files
    assert (f"{PY}/layers/attention/flashmla_backend.py", "flashmla") in files
    assert {(d.names, d.feature) for d in pruned.plan.deletions
            if d.kind == "remove_list_element"} == {
        (("fa3",), "fa3"), (("flashmla",), "flashmla"), (("ascend",), "ascend")}


def test_blocked_feature_items_come_with_their_chain(pruned):
    fa3 = next(f for f in pruned.features if f.name == "fa3")
    assert {i.node for i in fa3.blocked} == {
        "py:mini_kernel.flash_attn", "py:mini_kernel.flash_attn:is_fa3_supported"}
    chain = next(i.chain for i in fa3.blocked if i.node == "py:mini_kernel.flash_attn")
    # server_args' `"fa3" if is_fa3_supported() else "triton"` folds with its condition:
    # the script that asks for FA3 directly is what keeps the wrapper
    assert chain[0].startswith("root minisgl.srt.utils.fa3_check")
    assert "[import at python/minisgl/srt/utils/fa3_check.py:5]" in chain[-1]
    # the FA3 kernels themselves are removable: the wrapper no longer imports flash_ops
    assert {(d.path, d.feature) for d in pruned.plan.deletions if d.kind == "delete_file"
            and d.path.startswith(K)} >= {(f"{K}/csrc/flash_extension.cc", "fa3"),
                                          (f"{K}/csrc/flash/flash_fwd.cu", "fa3")}
    assert (f"{K}/CMakeLists.txt", 39, 47, "", "fa3") in by_kind(pruned, "delete_range")


def test_feature_totals(pruned):
    totals = {f.name: (f.files_removable, len(f.blocked)) for f in pruned.features}
    assert totals == {"fa3": (3, 2), "flashmla": (6, 0), "ascend": (1, 0)}


def test_plugin_family_keeps_only_the_roots_models_and_their_tests(pruned):
    files = {d.path for d in pruned.plan.deletions if d.kind == "delete_file"}
    assert f"{PY}/models/llama.py" in files  # no root names it
    assert "py:minisgl.srt.models.deepseek_v2" in pruned.liveness.live
    # the test of llama imports only dead code: it goes too
    assert "test/test_llama.py" in files


def test_keep_a_feature_unfixes_its_guards():
    result = run_scan(MINI_SGLANG, ["deepseek_v2"], keep=("ascend",))
    assert result.profile.drops == ("fa3", "flashmla")
    assert "py:minisgl.srt.hardware_backend.npu.npu_ops" in result.liveness.live


def test_stale_profile_entries_warn_and_fail_under_strict(tmp_path):
    profile = tmp_path / "extra.toml"
    profile.write_text((MINI_SGLANG / "depgraph.toml").read_text() + '''
[[never_delete]]
path = "python/minisgl/srt/removed_long_ago.py"
reason = "kept for a plugin"
''')
    args = ["scan", str(MINI_SGLANG), "--roots", "deepseek_v2", "--profile", str(profile),
            "--out", str(tmp_path / "o")]
    loose = CliRunner().invoke(main, args)
    assert loose.exit_code == 0
    assert "stale" in loose.output and "removed_long_ago.py" in loose.output
    strict = CliRunner().invoke(main, [*args, "--strict"])
    assert strict.exit_code == 6
    assert strict.output.strip().startswith("depgraph: error: stale profile entry:")


def test_unknown_drop_is_a_profile_error(tmp_path):
    result = CliRunner().invoke(main, ["scan", str(MINI_SGLANG), "--drop", "flashmal",
                                       "--out", str(tmp_path / "o")])
    assert result.exit_code == 6
    assert "flashmla" in result.output  # the suggestion


def test_why_names_the_dropped_feature_and_the_decision(tmp_path):
    result = CliRunner().invoke(main, [
        "why", str(MINI_SGLANG),
        "minisgl.srt.layers.attention.attention_registry:create_flashmla_backend",
        "--roots", "deepseek_v2"])
    assert result.exit_code == 0, result.output
    assert "is dead" in result.output
    assert "dropped feature flashmla" in result.output
    assert "registered under dropped key 'flashmla'" in result.output
