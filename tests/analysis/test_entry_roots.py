"""A module named by --roots is an entry: its public functions and classes are its API."""

from __future__ import annotations

from analyzer.pipeline.scan import run_scan
from tests.helpers import write_tree


def test_an_entry_modules_public_definitions_stay(tmp_path) -> None:
    tree = write_tree(tmp_path / "t", {
        "pkg/__init__.py": "",
        "pkg/main.py": "from pkg.util import helper\n\n\ndef main():\n    return helper()\n\n\n"
                       "def _private():\n    return 1\n",
        "pkg/util.py": "def helper():\n    return 2\n\n\ndef unused():\n    return 3\n",
    })
    result = run_scan(tree, ["pkg.main"], use_profile=False)
    symbols = {d.symbol for d in result.plan.deletions if d.symbol}
    # main() is pkg.main's API (no `__main__` guard calls it); _private and util.unused are not
    assert symbols == {"pkg.main:_private", "pkg.util:unused"}
    assert "py:pkg.main:main" in result.liveness.roots


def test_chains_start_at_the_root_the_user_named() -> None:
    from tests.helpers import MINI_SGLANG

    # models/deepseek_v2.py (named) calls torch.ops.mini_kernel.moe_align; common_ops, a kept
    # target (a root of the build), reaches that op in one step, the model in four: the chain
    # still starts at the root the user named
    result = run_scan(MINI_SGLANG, ["deepseek_v2"])
    chain = result.liveness.chain("op:mini_kernel::moe_align")
    assert chain[0] == "py:minisgl.srt.models.deepseek_v2"
    assert len(chain) > 2
