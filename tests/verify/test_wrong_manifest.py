"""depgraph verify catches every class of false deletion by itself: for each class, a plan
with one deliberately wrong deletion (what a planner bug would write) is applied to a copy of
``sample_repos/prune_safety``, and verify, comparing with what the manifest recorded of the
original, names the break. Line numbers are those of the sample files as written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyzer.cli.verify import EXIT_VERIFY, verify_command
from analyzer.codemod.apply import run_apply
from analyzer.model import Deletion
from analyzer.pipeline.scan import run_scan
from analyzer.pipeline.verify import manifest_of
from tests.helpers import SAMPLES, tampered_manifest


def prune_wrongly(tmp_path: Path, wrong: dict, edit: tuple[str, str, str] | None = None
                  ) -> list[str]:
    """Scan a copy, add the wrong deletion to the plan, apply the manifest, verify."""
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / "prune_safety", tree)
    if edit is not None:
        path, old, new = edit
        text = (tree / path).read_text()
        assert old in text
        (tree / path).write_text(text.replace(old, new))
    result = run_scan(tree, [])
    info = result.files[wrong["path"]]
    result.plan.deletions.append(Deletion(sha256=info.sha256, **wrong))
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(tampered_manifest(result)))
    applied = run_apply(manifest, write=True, patch_out=tmp_path / "undo.patch")
    assert applied.changes or applied.skipped
    out = CliRunner().invoke(verify_command, [str(tree), "--before", str(manifest)])
    assert out.exit_code == EXIT_VERIFY, out.output
    return out.stdout.splitlines()


def python_deletion(kind: str, path: str, start: int, end: int, category: str,
                    **extra) -> dict:
    return {"kind": kind, "path": path, "lines": end - start + 1,
            "reason": "planted by the test", "start_line": start, "end_line": end,
            "category": category, **extra}


def test_type_checking_import_a_string_annotation_names(tmp_path):
    lines = prune_wrongly(tmp_path, python_deletion(
        "delete_range", "app/typing_user.py", 5, 6, "python-import"))
    assert any(line.startswith("app/typing_user.py:") and
               "undefined name 'CudaBackend' (new after pruning)" in line for line in lines)


def test_folded_branch_binding_a_name_a_method_reads(tmp_path):
    lines = prune_wrongly(tmp_path, python_deletion(
        "fold_branch", "app/layers.py", 5, 6, "python-branch", rewrite="delete",
        statement=(5, 6)))
    assert any(line.startswith("app/layers.py:") and "undefined name 'npu_norm'" in line
               for line in lines)


def test_try_folded_onto_a_handler_that_raises(tmp_path):
    lines = prune_wrongly(tmp_path, python_deletion(
        "fold_branch", "app/kernels.py", 1, 3, "python-branch", rewrite="try_unwrap",
        statement=(1, 4), keep=(4, 4)),
        edit=("app/kernels.py", "except ImportError as exc:\n    raise ImportError("
              '"app.fast_ext is not built: build it with -DWITH_FAST=ON") from exc',
              'except ImportError:\n    raise ImportError("app.fast_ext is not built")'))
    assert "app/kernels.py:1: the module now raises when imported (a module-level raise the " \
        "original did not run)" in lines


def test_module_getattr_deleted(tmp_path):
    lines = prune_wrongly(tmp_path, python_deletion(
        "delete_range", "app/lazy.py", 5, 8, "python-symbol", symbol="app.lazy:__getattr__"))
    assert "app/main.py:3: from app.lazy import current_device: app.lazy has no module, " \
        "definition or extension target named current_device" in lines


def test_import_removed_from_one_branch_of_live_code(tmp_path):
    lines = prune_wrongly(tmp_path, python_deletion(
        "delete_range", "app/branches.py", 8, 8, "python-import"))
    assert "app/branches.py:4: pick: 'fn' may be unbound (bound 3 times before, 2 now)" in lines


def test_enum_member_live_code_names(tmp_path):
    lines = prune_wrongly(tmp_path, python_deletion(
        "delete_range", "app/backends.py", 6, 6, "registry-entry", feature="npu"))
    assert "app/backends.py:8: Backend.NPU is gone" in lines


def test_dropped_key_live_code_still_selects(tmp_path):
    lines = prune_wrongly(tmp_path, {
        "kind": "remove_list_element", "path": "app/server_args.py", "lines": 0,
        "reason": "device_choices entry 'npu' belongs to dropped feature npu",
        "start_line": 3, "end_line": 3, "names": ("npu",), "category": "registry-entry",
        "feature": "npu"})
    assert "app/server_args.py:12: live code selects dropped key 'npu' (self.backend = " \
        "'npu') but the pruning removed its registry entries" in lines


def test_entry_the_codemod_could_not_carry_out(tmp_path):
    # `except ImportError as exc:` binds a name: the codemod leaves the try as it is
    lines = prune_wrongly(tmp_path, python_deletion(
        "fold_branch", "app/kernels.py", 1, 3, "python-branch", rewrite="try_unwrap",
        statement=(1, 4), keep=(4, 4)))
    assert any(line.startswith("app/kernels.py:1: manifest entry not carried out:")
               for line in lines)


@pytest.mark.parametrize("name", ["prune_safety"])
def test_right_manifest_verifies(tmp_path, name):
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLES / name, tree)
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(manifest_of(run_scan(tree, []))))
    run_apply(manifest, write=True, patch_out=tmp_path / "undo.patch")
    out = CliRunner().invoke(verify_command, [str(tree), "--before", str(manifest)])
    assert out.exit_code == 0, out.output


def test_method_deleted_while_still_called(tmp_path):
    # Norm.forward (layers.py 10-11): main.py calls norm.forward(1) and Norm.implementations
    # reads self.forward; no other class of the sample defines `forward`
    lines = prune_wrongly(tmp_path, python_deletion(
        "delete_range", "app/layers.py", 10, 11, "python-symbol", symbol="app.layers:Norm.forward"))
    assert "app/main.py:12: reads .forward, which app.layers:Norm defined in the original " \
        "tree and no class defines now" in lines
