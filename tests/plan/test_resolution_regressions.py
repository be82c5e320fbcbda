"""Shapes found on real SGLang that once made a pruned tree fail `verify` (hand-written trees).

1. A name bound in every arm of a folded `if/elif/else` (spec_utils.py: `if _is_cuda: from
   kernels import fast_topk ... else: from utils import fast_topk`): the live arm's binding
   must win, or the live kernel looks dead and its import is deleted.
2. A script outside the deletion scope (benchmark/) imports a private helper it never calls at
   module level: the script is never edited, so the helper must stay.
"""

from __future__ import annotations

from analyzer.pipeline.scan import run_scan
from tests.helpers import write_tree

PROFILE = '''name = "t"
[constants]
"pkg.probe.is_cuda" = true
'''


def test_live_branch_binding_wins_over_folded_ones(tmp_path):
    repo = write_tree(tmp_path / "repo", {
        "depgraph.toml": PROFILE,
        "pkg/__init__.py": "",
        "pkg/probe.py": "def is_cuda():\n    return True\n",
        "pkg/kernels.py": "def fast_topk(x):\n    return x\n",
        "pkg/fallback.py": "def fast_topk(x):\n    return x\n",
        "pkg/spec.py": ("from pkg.probe import is_cuda\n\nif is_cuda():\n"
                        "    from pkg.kernels import fast_topk\nelse:\n"
                        "    from pkg.fallback import fast_topk\n"),
        "pkg/worker.py": ("from pkg.spec import fast_topk\n\n\n"
                          "def run(x):\n    return fast_topk(x)\n"),
    })
    result = run_scan(repo, ["pkg.worker:run"], use_default_roots=False)
    live = result.liveness.live
    assert "py:pkg.kernels:fast_topk" in live
    assert "py:pkg.fallback:fast_topk" not in live
    # the live import stays; the else arm goes as a folded branch (lines 5-6), and the
    # `if is_cuda():` header goes with the unwrapping, so the import of is_cuda (line 1),
    # read by nothing else, goes too
    spec = [(d.kind, d.start_line, d.end_line) for d in result.plan.deletions
            if d.path == "pkg/spec.py"]
    assert spec == [("delete_range", 1, 1), ("fold_branch", 5, 6)]


def test_out_of_scope_scripts_keep_what_they_import(tmp_path):
    repo = write_tree(tmp_path / "repo", {
        "pkg/__init__.py": "",
        "pkg/fp8.py": "def _matmul_x4(a):\n    return a\n\n\ndef matmul(a):\n    return a\n",
        "pkg/api.py": "from pkg.fp8 import matmul\n\n\ndef run(a):\n    return matmul(a)\n",
        "benchmark/tune.py": ("from pkg.fp8 import _matmul_x4, matmul\n\n\n"
                              "if __name__ == \"__main__\":\n    print(matmul)\n"),
    })
    result = run_scan(repo, ["pkg.api:run"], use_profile=False)
    assert "py:pkg.fp8:_matmul_x4" in result.liveness.live
    assert not any(d.path == "pkg/fp8.py" for d in result.plan.deletions)
