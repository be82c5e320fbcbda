"""Zero false deletions: one scenario per class of break seen on real trees, on the
hand-written sample ``sample_repos/prune_safety`` (read it: expectations come from it)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analyzer.pipeline.scan import ScanResult, run_scan
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "prune_safety"


def planned(result: ScanResult) -> set[tuple]:
    return {(d.kind, d.path, d.start_line, d.end_line, d.names) for d in result.plan.deletions}


@pytest.fixture(scope="module")
def as_is() -> ScanResult:
    return run_scan(SAMPLE, [])


@pytest.fixture(scope="module")
def no_producer(tmp_path_factory) -> ScanResult:
    """The sample without server_args' `self.backend = "npu"`: the key is selected by no
    live code, so its registrations can go."""
    tree = tmp_path_factory.mktemp("safety") / "tree"
    shutil.copytree(SAMPLE, tree)
    path = tree / "app/server_args.py"
    path.write_text(path.read_text().replace('self.backend = "npu"', 'self.backend = "cuda"'))
    return run_scan(tree, [])


def test_live_producer_of_a_dropped_key_blocks_it(as_is):
    # class 6: ServerArgs.__post_init__ (live) assigns "npu": the key may be chosen at run
    # time, so nothing registered under it goes
    assert as_is.profile.blocked_keys == {"npu": "app/server_args.py:12: self.backend = 'npu'"}
    assert planned(as_is) == set()
    npu = next(f for f in as_is.features if f.name == "npu")
    assert "app.npu_backend" in {i.label for i in npu.blocked}


def test_exact_plan_without_the_producer(no_producer):
    assert no_producer.profile.blocked_keys == {}
    assert planned(no_producer) == {
        # the npu factory registered under the dropped key, and its backend module
        ("delete_range", "app/registry.py", 18, 22, ()),
        ("delete_file", "app/npu_backend.py", None, None, ()),
        # the choice element shares its line with "cuda": the element only
        ("remove_list_element", "app/server_args.py", 3, 3, ("npu",)),
    }


def test_folded_branch_whose_binding_remaining_code_reads_stays(no_producer):
    # class 1: `if _is_npu: from app.npu_ops import npu_norm` folds to False, but
    # Norm.forward_npu (kept: the class is live) reads npu_norm
    assert not any(d.path == "app/layers.py" for d in no_producer.plan.deletions)
    assert not any(d.path == "app/npu_ops.py" for d in no_producer.plan.deletions)
    assert any(c.path == "app/layers.py" and "npu_norm" in c.what
               for c in no_producer.conflicts)


def test_type_checking_import_named_by_a_string_annotation_stays(no_producer):
    # class 1: `if TYPE_CHECKING: from app.cuda_backend import CudaBackend`, used only in
    # the string annotation "CudaBackend"; `Tuple` only in a return annotation
    assert not any(d.path == "app/typing_user.py" for d in no_producer.plan.deletions)


def test_try_whose_handler_raises_is_not_folded(no_producer):
    # class 2: app.fast_ext is an extension of the dropped feature, but the except clause
    # raises: folding onto it would make kernels.py raise at import
    assert not any(d.path == "app/kernels.py" for d in no_producer.plan.deletions)


def test_module_getattr_and_what_it_calls_stay(no_producer):
    # class 3: `from app.lazy import current_device` is answered by __getattr__ (PEP 562)
    assert not any(d.path == "app/lazy.py" for d in no_producer.plan.deletions)


def test_imports_in_branches_of_live_code_stay(no_producer):
    # class 4: both `from app.helpers import ... as fn` bind the name read after the if
    assert not any(d.path in ("app/branches.py", "app/helpers.py")
                   for d in no_producer.plan.deletions)


def test_enum_member_remaining_code_names_stays(no_producer):
    # class 5: Backend.NPU belongs to the dropped key, but is_npu_backend() reads it
    assert not any(d.path == "app/backends.py" for d in no_producer.plan.deletions)
    assert any(c.path == "app/backends.py" and "Backend.NPU" in c.what
               for c in no_producer.conflicts)


def test_file_that_does_not_parse_is_never_planned(no_producer):
    # class 9: app/broken.py has a syntax error and nothing imports it
    assert not any(d.path == "app/broken.py" for d in no_producer.plan.deletions)


def test_plan_of_a_huge_module_is_linear(tmp_path: Path):
    # class 11: a live module with thousands of unused functions (the plan was quadratic in
    # them); every one is planned, each once
    n = 6000
    body = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(n))
    pkg = tmp_path / "gen"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "big.py").write_text(body + "def main():\n    return f0(1)\n")
    (pkg / "__main__.py").write_text("from gen.big import main\n\nmain()\n")
    result = run_scan(tmp_path, [])
    symbols = [d for d in result.plan.deletions if d.category == "python-symbol"]
    assert len(symbols) == n - 1
    assert len({d.symbol for d in symbols}) == n - 1


def test_lazy_import_inside_a_build_installed_package_keeps_its_target(tmp_path: Path):
    # class 4: `import gemmlib.utils.layout` inside a live function, gemmlib being a package
    # only the build creates (install(TARGETS ... DESTINATION gemmlib)): the import stays,
    # and so does the target that installs the package
    from tests.helpers import write_tree

    tree = write_tree(tmp_path / "t", {
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\nproject(g LANGUAGES CXX)\n"
                          "add_library(gemm_core MODULE csrc/gemm.cc)\n"
                          "install(TARGETS gemm_core LIBRARY DESTINATION gemmlib)\n",
        "csrc/gemm.cc": "int gemm() { return 0; }\n",
        "app/__init__.py": "",
        "app/__main__.py": "from app.ops import transform\n\ntransform(1)\n",
        "app/ops.py": "def transform(x):\n    import gemmlib.utils.layout\n\n"
                      "    return gemmlib.utils.layout.pack(x)\n",
    })
    result = run_scan(tree, [], use_profile=False)
    assert planned(result) == set()
    assert result.native_summary.dead_targets == []


def test_name_imported_in_one_branch_and_defined_in_the_other_keeps_both(tmp_path: Path):
    # vLLM's attention/ops/flashmla.py: `if available(): from ext import Meta` / `else:
    # class Meta: pass`; other modules import Meta from it. The import binding is used (on
    # machines where the branch runs) even though a definition of the name exists.
    from tests.helpers import write_tree

    tree = write_tree(tmp_path / "t", {
        "app/__init__.py": "",
        "app/__main__.py": "from app.user import run\n\nrun()\n",
        "app/ext.py": "class Meta:\n    pass\n",
        "app/ops.py": "import os\n\nif os.environ.get('X'):\n    from app.ext import Meta\n"
                      "else:\n\n    class Meta:\n        pass\n",
        "app/user.py": "from app.ops import Meta\n\n\ndef run():\n    return Meta()\n",
    })
    assert planned(run_scan(tree, [], use_profile=False)) == set()


def test_out_of_rounds_the_plan_still_holds_nothing_that_breaks(monkeypatch, tmp_path: Path):
    # the soundness rounds stop early: what the last check convicts is dropped all the same
    import analyzer.pipeline.rounds as rounds
    import analyzer.pipeline.scan as scan

    monkeypatch.setattr(rounds, "MAX_ROUNDS", 1)
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE, tree)
    path = tree / "app/server_args.py"
    path.write_text(path.read_text().replace('self.backend = "npu"', 'self.backend = "cuda"'))
    result = scan.run_scan(tree, [])
    paths = {d.path for d in result.plan.deletions}
    assert not paths & {"app/layers.py", "app/typing_user.py", "app/backends.py"}


PROFILE = '''name = "t"
description = "t"
entry_points = ["app.main:main"]
default_drops = ["fancy"]

[features.fancy]
description = "an optional fast path"
paths = ["app/fancy.py"]
'''


def test_try_import_of_a_dropped_features_module_takes_the_except_path(tmp_path: Path):
    # issue 12 (5): `try: from app.fancy import fast` with an ImportError fallback; app/fancy.py
    # belongs to the dropped feature: the except path stays, the try goes, and so does the file
    from tests.helpers import write_tree

    tree = write_tree(tmp_path / "t", {
        "depgraph.toml": PROFILE,
        "app/__init__.py": "",
        "app/fancy.py": "def fast(x):\n    return x\n",
        "app/main.py": "try:\n    from app.fancy import fast\nexcept ImportError:\n"
                       "    fast = None\n\n\ndef main():\n    return fast\n",
    })
    result = run_scan(tree, [])
    assert planned(result) == {
        ("fold_branch", "app/main.py", 1, 3, ()),  # try:, its import, the except header
        ("delete_file", "app/fancy.py", None, None, ())}


def test_try_import_of_a_module_live_code_still_imports_is_not_folded(tmp_path: Path):
    # the same, but app/main.py also imports app.fancy unconditionally: the module stays
    # (blocked), so the try's import succeeds and nothing is folded
    from tests.helpers import write_tree

    tree = write_tree(tmp_path / "t", {
        "depgraph.toml": PROFILE,
        "app/__init__.py": "",
        "app/fancy.py": "def fast(x):\n    return x\n",
        "app/main.py": "import app.fancy\n\ntry:\n    from app.fancy import fast\n"
                       "except ImportError:\n    fast = None\n\n\ndef main():\n"
                       "    return fast, app.fancy\n",
    })
    result = run_scan(tree, [])
    assert planned(result) == set()
    fancy = next(f for f in result.features if f.name == "fancy")
    assert [i.label for i in fancy.blocked] == ["app.fancy", "app.fancy:fast"]


VALUES_PROFILE = '''name = "t"
description = "t"
entry_points = ["app.main:main"]
default_drops = ["npu"]

[[registries]]
name = "devices"
kind = "values"

[domains]
"*.device" = "devices"

[features.npu]
description = "npu"
paths = ["app/npu.py"]

[features.npu.registry_keys]
devices = ["npu"]
'''


@pytest.mark.parametrize(("producer", "folded"), [
    ('"cuda"', True),   # nothing live selects "npu": the comparison folds, app/npu.py goes
    ('"npu"', False),   # a live default selects it: the key is blocked, nothing folds
])
def test_values_registry_folds_comparisons_of_a_dropped_value(tmp_path: Path, producer: str,
                                                               folded: bool):
    from tests.helpers import write_tree

    tree = write_tree(tmp_path / "t", {
        "depgraph.toml": VALUES_PROFILE,
        "app/__init__.py": "",
        "app/npu.py": "def set_npu(args):\n    args.page_size = 128\n",
        "app/main.py": "class Args:\n    def __init__(self):\n"
                       f"        self.device = {producer}\n"
                       "        if self.device == \"npu\":\n"
                       "            from app.npu import set_npu\n\n"
                       "            set_npu(self)\n\n\n"
                       "def main():\n    return Args()\n",
    })
    result = run_scan(tree, [])
    if folded:
        assert planned(result) == {("fold_branch", "app/main.py", 4, 7, ()),
                                   ("delete_file", "app/npu.py", None, None, ())}
        assert result.profile.blocked_keys == {}
    else:
        assert planned(result) == set()
        assert result.profile.blocked_keys == {"npu": "app/main.py:3: self.device = 'npu'"}


CLAUSE_PROFILE = '''name = "t"
description = "t"
entry_points = ["app.main:main"]
default_drops = ["fancy"]

[[registries]]
name = "backends"
kind = "decorator"
target = "app.registry.register"

[features.fancy]
description = "fancy"
paths = ["app/fancy.py"]

[features.fancy.registry_keys]
backends = ["fancy"]
'''

REGISTRY = '''BACKENDS = {}


def register(name):
    def wrap(fn):
        BACKENDS[name] = fn
        return fn
    return wrap


@register("triton")
def triton():
    return 1


@register("fancy")
def fancy():
    from app.fancy import Fancy

    return Fancy()
'''


@pytest.mark.parametrize(("tail", "folds"), [
    ('        else:\n            self.backend = "triton"\n', True),
    ("", False),  # no later clause selects instead: the key stays (blocked)
])
def test_a_clause_that_only_selects_a_dropped_key_goes_when_a_later_one_selects(
        tmp_path: Path, tail: str, folds: bool):
    # issue 12 (8): `elif sm == 90: self.backend = "fancy"` only selects the dropped key; the
    # `else` assigns the same attribute: on sm90 the else decides (a behaviour decision)
    from tests.helpers import write_tree

    tree = write_tree(tmp_path / "t", {
        "depgraph.toml": CLAUSE_PROFILE,
        "app/__init__.py": "",
        "app/fancy.py": "class Fancy:\n    pass\n",
        "app/registry.py": REGISTRY,
        "app/main.py": "from app.registry import BACKENDS\n\n\nclass Args:\n"
                       "    def __init__(self, sm):\n        if sm == 100:\n"
                       "            self.backend = \"triton\"\n        elif sm == 90:\n"
                       "            self.backend = \"fancy\"\n" + tail + "\n\n"
                       "def main():\n    return BACKENDS[Args(90).backend]()\n",
    })
    result = run_scan(tree, [])
    if folds:
        assert result.profile.blocked_keys == {}
        assert planned(result) == {
            ("fold_branch", "app/main.py", 8, 9, ()),     # the elif clause
            ("delete_range", "app/registry.py", 16, 20, ()),  # the fancy factory
            ("delete_file", "app/fancy.py", None, None, ())}
        fold = next(d for d in result.plan.deletions if d.kind == "fold_branch")
        assert "only selects dropped key 'fancy'" in fold.reason
    else:
        assert result.profile.blocked_keys == {"fancy": "app/main.py:9: self.backend = 'fancy'"}
        assert planned(result) == set()
