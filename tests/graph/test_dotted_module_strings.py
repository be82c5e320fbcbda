"""A dotted string naming a module is there to be loaded, perhaps through a variable
(``importlib.import_module(BACKENDS[name]).run()``): the module's public definitions are live,
as for a literal ``import_module`` argument. Expectations from sample_repos/dynamic_loading
(its README says why each definition stays or goes)."""

from __future__ import annotations

from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "dynamic_loading"


def test_public_api_of_a_module_named_by_a_string_stays() -> None:
    result = run_scan(SAMPLE, [])
    planned = {(d.kind, d.path, d.symbol) for d in result.plan.deletions}
    assert planned == {
        ("delete_file", "dyn/orphan.py", None),
        ("delete_range", "dyn/backends/fast.py", "dyn.backends.fast:_unused_fast"),
        ("delete_range", "dyn/backends/slow.py", "dyn.backends.slow:_unused_slow"),
    }


def test_both_modes_agree_on_the_loaded_modules() -> None:
    demand = run_scan(SAMPLE, [])
    full = run_scan(SAMPLE, [], parse_all=True)
    assert {(d.path, d.symbol) for d in demand.plan.deletions} == \
        {(d.path, d.symbol) for d in full.plan.deletions}
    # orphan.py is named by nothing: counted without a parse; the backends are parsed
    assert demand.counted == {"dyn/orphan.py"}
